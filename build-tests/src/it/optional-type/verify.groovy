def log = new File(basedir, 'build.log').text
assert log =~ /example\.lib\.Assembler needs example\.extra\.(Left|Right|Part): no dependency of this project provides it/ : 'the optional part is not named'
assert log.contains('They are copied unchanged and keep the JVM') : 'no warning'
assert new File(basedir, 'app/target/dthreads-dependencies/lib-1.0.jar').isFile() : 'lib not instrumented'

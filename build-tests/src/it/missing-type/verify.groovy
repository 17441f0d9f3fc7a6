def log = new File(basedir, 'app/build.log').exists() ? new File(basedir, 'app/build.log').text : new File(basedir, 'build.log').text
assert log.contains("class(es) of example:lib:jar:1.0 cannot be rewritten") : 'no clear error'
assert log =~ /example\.lib\.Drawer needs example\.base\.(Circle|Square|Shape): it is in example:base:jar:1\.0, scope test/ : 'the class, the missing type or its provider is not named'
assert !new File(basedir, "app/target/dthreads-dependencies/lib-1.0.jar").exists() : 'partial output left behind'
// an optional dependency of lib that no dependency of app provides: named as such in the same error
assert log =~ /example\.lib\.Assembler needs example\.extra\.(Left|Right|Part): no dependency of this project provides it/ : 'the optional dependency is not named'

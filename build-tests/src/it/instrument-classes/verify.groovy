// the goal ran at process-classes, rewrote every class of the project and the tests passed without -javaagent
def log = new File(basedir, 'build.log').text
def report = log.readLines().find { it.contains('dthreads: instrumented the project\'s classes:') }
assert report != null : 'dthreads:instrument did not report'
assert report.contains('4 of 4 classes rewritten, 2 remote interfaces twinned') : report
assert log.contains('Tests run: 2, Failures: 0, Errors: 0') : 'ZigzagTest did not pass'

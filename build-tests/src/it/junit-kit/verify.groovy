def log = new File(basedir, 'build.log').text
assert log.contains('Tests run: 3, Failures: 0, Errors: 0, Skipped: 0') : 'OrderZigzagTest did not pass'

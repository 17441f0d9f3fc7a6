def log = new File(basedir, 'build.log').text
assert log.contains("class(es) of ch.qos.logback:logback-classic:jar:${logbackVersion} cannot be rewritten") : 'no clear error'
assert log.contains("ch.qos.logback.classic.net.SocketReceiver needs ch.qos.logback.core.ContextBase: it is in ch.qos.logback:logback-core:jar:${logbackVersion}, scope test") : 'the class, the missing type or its provider is not named'
assert !new File(basedir, "target/dthreads-dependencies/logback-classic-${logbackVersion}.jar").exists() : 'partial output left behind'

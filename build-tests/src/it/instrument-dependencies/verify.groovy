import java.util.jar.JarFile
def out = new File(basedir, 'target/dthreads-dependencies')
["logback-classic-${logbackVersion}.jar", "logback-core-${logbackVersion}.jar", "slf4j-api-${slf4jVersion}.jar"].each {
    assert new File(out, it).isFile() : "$it not instrumented into $out"
}
assert !new File(out, "dthreads-agent-${dthreadsVersion}.jar").exists() : 'the dthreads runtime must not be rewritten'
def log = new File(basedir, 'build.log').text
assert log =~ /dthreads: instrumented ch\.qos\.logback:logback-classic:jar:${logbackVersion}: \d+ of \d+ classes rewritten/
assert log.contains("logback-classic-${logbackVersion}.jar is up to date") : 'the second build rewrote the jars again'
// a rewritten class carries dthreads' marker, and its synchronized methods are emulated
def jar = new JarFile(new File(out, "logback-core-${logbackVersion}.jar"))
def bytes = jar.getInputStream(jar.getEntry('ch/qos/logback/core/ContextBase.class')).bytes
assert new String(bytes, 'ISO-8859-1').contains('org/dthreads/') : 'ContextBase was not rewritten'
jar.close()
// logback-core's SMTP appender uses jakarta.mail, an optional dependency absent here, only in methods with
// nothing to rewrite: they are copied, so no frame needs the absent types and the class is rewritten
// (fixture optional-type covers a rewritten method that does need them: a warning)
assert !log.contains('SMTPAppenderBase needs') : 'SMTPAppenderBase needed an absent type'
def core = new JarFile(new File(out, "logback-core-${logbackVersion}.jar"))
def smtp = core.getInputStream(core.getEntry('ch/qos/logback/core/net/SMTPAppenderBase.class')).bytes
assert new String(smtp, 'ISO-8859-1').contains('org/dthreads/') : 'SMTPAppenderBase was not rewritten'
core.close()

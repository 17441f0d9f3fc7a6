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
// logback-core's SMTP appender needs jakarta.mail, an optional dependency absent here: a warning, not an error
assert log.contains('ch.qos.logback.core.net.SMTPAppenderBase needs jakarta.mail.internet.MimeBodyPart: no dependency of this project provides it')

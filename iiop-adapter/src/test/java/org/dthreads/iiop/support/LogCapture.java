package org.dthreads.iiop.support;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import java.util.stream.Collectors;
import org.dthreads.iiop.DThreadsOrbInitializer;
import org.slf4j.LoggerFactory;

/** Captures what the adapter logs in this JVM (System.Logger -> SLF4J -> Logback). */
public final class LogCapture implements AutoCloseable {

    private final Logger logger;
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    /** What the adapter's ORB initializer logs. */
    public LogCapture() {
        this(DThreadsOrbInitializer.class.getName());
    }

    /** What the logger of that name logs. */
    public LogCapture(String loggerName) {
        logger = (Logger) LoggerFactory.getLogger(loggerName);
        appender.start();
        logger.addAppender(appender);
    }

    /** The formatted messages, without their levels. */
    public List<String> messages() {
        return appender.list.stream().map(ILoggingEvent::getFormattedMessage).collect(Collectors.toList());
    }

    public List<String> lines() {
        return appender.list.stream().map(e -> e.getLevel() + " " + e.getFormattedMessage()).collect(Collectors.toList());
    }

    @Override
    public void close() {
        logger.detachAppender(appender);
    }
}

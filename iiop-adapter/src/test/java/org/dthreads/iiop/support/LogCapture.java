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

    private final Logger logger = (Logger) LoggerFactory.getLogger(DThreadsOrbInitializer.class);
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    public LogCapture() {
        appender.start();
        logger.addAppender(appender);
    }

    public List<String> lines() {
        return appender.list.stream().map(e -> e.getLevel() + " " + e.getFormattedMessage()).collect(Collectors.toList());
    }

    @Override
    public void close() {
        logger.detachAppender(appender);
    }
}

package org.dthreads.iiop.internal;

/**
 * Reply status codes of the {@value MonitorRequestHook#OPERATION} operation; their values are on the wire
 * ({@code docs/wire-format.md}, "Remote monitor operations over IIOP").
 */
final class MonitorWire {
    /** Reply body: {@code long long result}. */
    static final int OK = 0;
    /** Reply body: {@code string message}; the client throws {@link IllegalMonitorStateException}. */
    static final int ILLEGAL_MONITOR_STATE = 1;
    /** {@link IllegalArgumentException} (bad timeout, unknown operation code, invalid class). */
    static final int ILLEGAL_ARGUMENT = 2;
    /** {@link InterruptedException}: the wait was interrupted. */
    static final int INTERRUPTED = 3;
    /** {@code RemoteMonitorException}: the site refused (native monitor, malformed request, failure). */
    static final int REFUSED = 4;
    /** {@link NullPointerException}. */
    static final int NULL_POINTER = 5;

    /** Messages are clipped to this many characters. */
    static final int MAX_MESSAGE = 2000;

    private MonitorWire() {}

    static String clip(String message) {
        return message.length() <= MAX_MESSAGE ? message : message.substring(0, MAX_MESSAGE) + "...";
    }
}

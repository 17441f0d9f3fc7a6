package org.dthreads.monitor;

/**
 * A monitor operation on a remote reference could not be carried out at the object's site: the site does
 * not run dthreads, no adapter can reach the reference, the object's monitor cannot be emulated there, or
 * the connection failed. The operation had no effect at the site, except for a failed {@code exit}, whose
 * lease then expires (see {@code docs/remote-monitors.md}).
 *
 * <p>Thrown instead of locking the local stub, which would silently exclude nobody.
 */
public class RemoteMonitorException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed, naming the reference and its site
     */
    public RemoteMonitorException(String message) {
        super(message);
    }

    /**
     * @param message what failed, naming the reference and its site
     * @param cause the transport's failure
     */
    public RemoteMonitorException(String message, Throwable cause) {
        super(message, cause);
    }
}

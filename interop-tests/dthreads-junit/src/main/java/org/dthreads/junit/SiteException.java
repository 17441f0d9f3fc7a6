package org.dthreads.junit;

/**
 * A site could not do what the test asked: a step threw (the message carries the site-side stack
 * trace), the site died (the message carries its exit code and the tail of its stderr), or an
 * endpoint did not arrive in time.
 */
public class SiteException extends RuntimeException {

    @java.io.Serial
    private static final long serialVersionUID = 1L;

    private final String siteName;

    /** An exception about site {@code siteName}. */
    public SiteException(String siteName, String message) {
        super(message);
        this.siteName = siteName;
    }

    /** An exception about site {@code siteName}, caused by {@code cause}. */
    public SiteException(String siteName, String message, Throwable cause) {
        super(message, cause);
        this.siteName = siteName;
    }

    /** The name of the site concerned. */
    public String siteName() {
        return siteName;
    }
}

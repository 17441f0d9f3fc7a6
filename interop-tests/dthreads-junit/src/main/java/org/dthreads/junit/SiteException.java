package org.dthreads.junit;

/**
 * A site could not do what the test asked: a step threw (the message carries the site-side stack
 * trace), the site died (the message carries its exit code and the tail of its stderr), or an
 * endpoint did not arrive in time.
 */
public class SiteException extends RuntimeException {

    @java.io.Serial
    private static final long serialVersionUID = 1L;

    /** The name of the site concerned; {@code "*"} for the whole cluster. */
    private final String siteName;

    /**
     * An exception about site {@code siteName}.
     *
     * @param siteName the name of the site concerned
     * @param message  what went wrong
     */
    public SiteException(String siteName, String message) {
        super(message);
        this.siteName = siteName;
    }

    /**
     * An exception about site {@code siteName}, caused by {@code cause}.
     *
     * @param siteName the name of the site concerned
     * @param message  what went wrong
     * @param cause    the underlying failure
     */
    public SiteException(String siteName, String message, Throwable cause) {
        super(message, cause);
        this.siteName = siteName;
    }

    /**
     * The name of the site concerned.
     *
     * @return the site's name ({@code "*"} for a report about the whole cluster)
     */
    public String siteName() {
        return siteName;
    }
}

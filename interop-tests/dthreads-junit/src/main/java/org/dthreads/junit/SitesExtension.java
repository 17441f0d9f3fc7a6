package org.dthreads.junit;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * JUnit 5 extension that gives tests a {@link SiteCluster} parameter and closes it after the test
 * (killing its sites), whatever the outcome.
 *
 * <pre>{@code
 * @ExtendWith(SitesExtension.class)
 * class ZigzagTest {
 *     @Test
 *     void zigzag(SiteCluster cluster) { ... }
 * }
 * }</pre>
 *
 * <p>When a test fails for another reason than the kit's own assertions (which already carry the
 * diagnostics) while its sites are running, a {@link SiteReport} of every site is attached to the
 * failure as a suppressed {@link SiteException}.
 *
 * <p>A parameter of a test method (or {@code @BeforeEach}) gets a cluster for that test, closed after
 * it; a parameter of a {@code @BeforeAll} method gets one for the class, closed after all its tests.
 * For options, register an instance: {@code @RegisterExtension static SitesExtension sites = new
 * SitesExtension(SiteCluster.builder().readyTimeout(Duration.ofSeconds(60)));}
 *
 * <h2>Threading contract</h2>
 * Stateless apart from the cluster options; safe with JUnit's parallel execution (each test gets
 * its own cluster).
 */
public final class SitesExtension
        implements ParameterResolver, AfterEachCallback, AfterAllCallback, TestExecutionExceptionHandler {

    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(SitesExtension.class);
    private static final String KEY = "cluster";

    private final SiteCluster.Builder options;

    /** An extension with default cluster options. */
    public SitesExtension() {
        this(null);
    }

    /**
     * An extension whose clusters are built from {@code options}.
     *
     * @param options the builder each cluster is built with; null means the default options
     */
    public SitesExtension(SiteCluster.Builder options) {
        this.options = options;
    }

    @Override
    public boolean supportsParameter(ParameterContext pc, ExtensionContext ec) {
        return pc.getParameter().getType() == SiteCluster.class;
    }

    @Override
    public Object resolveParameter(ParameterContext pc, ExtensionContext ec) {
        ExtensionContext.Store store = ec.getStore(NS);
        SiteCluster c = store.get(KEY, SiteCluster.class);
        if (c == null || c.isClosed()) {
            c = options != null ? options.build() : new SiteCluster();
            store.put(KEY, c);
        }
        return c;
    }

    @Override
    public void afterEach(ExtensionContext ec) {
        closeIn(ec);
    }

    @Override
    public void afterAll(ExtensionContext ec) {
        closeIn(ec);
    }

    @Override
    public void handleTestExecutionException(ExtensionContext ec, Throwable failure) throws Throwable {
        SiteCluster c = ec.getStore(NS).get(KEY, SiteCluster.class);
        if (c != null && !c.isClosed() && c.sites().stream().anyMatch(Site::isAlive)) {
            try {
                failure.addSuppressed(new SiteException("*",
                        "state of the cluster's sites when the test failed:\n" + c.diagnostics()));
            } catch (RuntimeException e) {
                // never hide the test's own failure
            }
        }
        throw failure;
    }

    private static void closeIn(ExtensionContext ec) {
        SiteCluster c = ec.getStore(NS).remove(KEY, SiteCluster.class);
        if (c != null) {
            c.close();
        }
    }
}

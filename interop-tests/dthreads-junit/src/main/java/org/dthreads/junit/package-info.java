/**
 * A JUnit 5 kit that starts real multi-JVM sites and asserts zigzag scenarios complete, or deadlock.
 *
 * <p>Start with {@link org.dthreads.junit.SitesExtension} (or a {@link org.dthreads.junit.SiteCluster}
 * in try-with-resources), describe each site with a {@link org.dthreads.junit.SiteSpec}, write the
 * code that runs inside a site as a {@link org.dthreads.junit.SiteApp}, and assert with
 * {@link org.dthreads.junit.SiteCluster#assertCompletesWithin} and, for the control that proves the
 * test can fail, {@link org.dthreads.junit.SiteCluster#assertDeadlocksWithin}. Sites can run in
 * separate {@link org.dthreads.junit.NetworkNamespaces network namespaces}.
 *
 * <p>The user guide is {@code docs/site-harness.md}. Types in {@code org.dthreads.junit.internal}
 * are not public API.
 */
package org.dthreads.junit;

/**
 * Internal helpers of the dthreads JUnit site kit: a site's command line, process and output
 * ({@code SiteCommandLine}, {@code SiteProcess}), the line protocol and its test side
 * ({@code Protocol}, {@code ControlChannel}), dumps, a cluster's scenario assertions and resources,
 * process killing, and the site runtime's implementation.
 *
 * <p><strong>Not public API.</strong> Everything in this package may change or disappear in any
 * release without notice; use the types in {@link org.dthreads.junit} instead.
 */
package org.dthreads.junit.internal;

/**
 * Internal helpers of the dthreads JUnit site kit: the line protocol, output pumps, process
 * killing, thread-dump formatting and the site runtime's implementation.
 *
 * <p><strong>Not public API.</strong> Everything in this package may change or disappear in any
 * release without notice; use the types in {@link org.dthreads.junit} instead.
 */
package org.dthreads.junit.internal;

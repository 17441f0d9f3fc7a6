/**
 * Emulated Java monitors keyed by thread equivalence classes, and the bytecode rewriter that calls them.
 */
package org.dthreads.monitor;

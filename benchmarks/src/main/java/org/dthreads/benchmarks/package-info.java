/**
 * JMH benchmarks of dthreads, each measured side by side with its anchor.
 */
package org.dthreads.benchmarks;

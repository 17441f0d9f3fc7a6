/**
 * Real workloads, plain and under the agent, each in its own JVMs (issue 16): embedded Derby and H2,
 * Rhino and XZ, class loading at start-up, and short-lived locked objects in a small heap.
 * {@link org.dthreads.benchmarks.realworld.PairedJvms} runs plain and agent JVMs interleaved and prints
 * them side by side; see docs/benchmarks.md, "Real workloads (issue 16)".
 */
package org.dthreads.benchmarks.realworld;

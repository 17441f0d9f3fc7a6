/**
 * The agent's costs: start-up (loading and rewriting the classes of a library) and a macro
 * benchmark (an embedded database used by several threads), each with and without
 * {@code -javaagent} side by side. Run from the repository root (the agent is attached as
 * {@code dthreads-agent/target/dthreads-agent.jar}); see docs/benchmarks.md.
 */
package org.dthreads.benchmarks.agent;

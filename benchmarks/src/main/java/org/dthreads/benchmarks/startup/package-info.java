/** The agent's fixed start-up cost: hello-world JVMs with and without the agent, interleaved. */
package org.dthreads.benchmarks.startup;

/** Not public API: the agent's start-up, scope and bootstrap-jar handling. */
package org.dthreads.agent.internal;

/**
 * The dthreads java agent and offline instrumenter: packaging and start-up only.
 */
package org.dthreads.agent;

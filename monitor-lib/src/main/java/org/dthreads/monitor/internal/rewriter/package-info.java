/**
 * Not public API: the ASM rewriter that replaces the JVM's monitor operations in application
 * bytecode with calls to {@link org.dthreads.monitor.Monitors}. Uses ASM, so it never goes on the
 * bootstrap path with the runtime; the agent and the offline instrumenter call
 * {@link org.dthreads.monitor.internal.rewriter.MonitorRewriter}.
 */
package org.dthreads.monitor.internal.rewriter;

package org.dthreads.monitor.internal.callbacks;

/**
 * One piece of work moved to another thread in {@code -Ddthreads.callbacks=original} mode: an outgoing call
 * run on a helper thread ({@link CallbackOutgoingCall}), or an incoming call run by the original thread of its
 * class ({@link CallbackHandOff}). Its result or exception reaches the thread that handed it over unchanged.
 */
@FunctionalInterface
public interface CallbackCall {

    /**
     * Runs the work.
     *
     * @return its result (null for none)
     * @throws Throwable what the work threw, handed back as is
     */
    Object call() throws Throwable;
}

package org.dthreads.iiop.internal;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.dthreads.monitor.internal.callbacks.CallbackOrbWait;

/**
 * The GlassFish ORB's reply wait opened to callbacks, in {@code -Ddthreads.callbacks=original} mode
 * ({@link GlassFishReplyWaitPatch}): a caller sends and waits for its own reply, and runs the callbacks of its class
 * that arrive meanwhile, with no helper thread ({@link CallbackOrbWait}, as over JacORB: {@link JacorbReplyWait}).
 *
 * <p>GlassFish 4.2 waits in {@code ResponseWaitingRoomImpl.waitForResponse(MessageMediator)}:
 * {@code desc.lock.lock(); try { while (no reply and no exception) { nanos = desc.condition.awaitNanos(nanos); if
 * (nanos <= 0) desc.exception = COMM_FAILURE (timeout); } ... } finally { desc.lock.unlock(); }}, where {@code desc}
 * is the call's {@code OutCallDesc} and the timeout, {@code ORBData.getWaitForResponseTimeout()} (property
 * {@code com.sun.corba.ee.transport.ORBWaitForResponseTimeout}, 30 min by default), starts again at each entry. The
 * patch renames that method to {@code waitForResponse$dthreads}, its code unchanged but for the
 * {@code awaitNanos}, which calls {@link #awaitNanos} instead, and the method with the original name calls
 * {@link #waitForResponse}. When the thread has an armed wait, {@link #awaitNanos} leaves the loop by throwing
 * {@link CallbackOrbWait#CALLBACK_QUEUED} once a callback is queued (the {@code finally} unlocks on the way out);
 * {@link #waitForResponse} runs the callbacks outside the lock and calls the original again
 * ({@link CallbackOrbWait#runOriginal}). A callback must never run under the lock: the connection's reader thread
 * takes it to deliver the reply.
 *
 * <p>The ORB's semantics stay: the reply, the exception set by the reader, the timeout exception are the original's
 * code. The timeout is kept across the re-entries: each wait is bounded by what is left of the first
 * ({@link CallbackOrbWait#boundedNanos}), so a call that runs callbacks still times out when the ORB's timeout
 * after its first wait has passed. An interrupt of the waiting caller is kept as in the mailbox's wait (GlassFish's
 * loop would swallow it).
 *
 * <p>Stateless but for the handles, resolved through the lookup the patched class passes (private access to
 * {@code ResponseWaitingRoomImpl} and its nest; resolved again when another copy of the ORB calls).
 */
public final class GlassFishReplyWait {

    private static volatile Handles handles;

    private record Handles(Class<?> owner, MethodHandle original, VarHandle lock, VarHandle condition) {}

    private GlassFishReplyWait() {}

    /**
     * The patched {@code waitForResponse(MessageMediator)}.
     *
     * @param room the {@code ResponseWaitingRoomImpl}
     * @param mediator the call's {@code MessageMediator}
     * @param lookup a lookup of {@code ResponseWaitingRoomImpl} (private access)
     * @return the reply's {@code CDRInputObject}, as the original returns it
     */
    public static Object waitForResponse(Object room, Object mediator, MethodHandles.Lookup lookup) throws Throwable {
        MethodHandle original = handles(lookup).original;
        CallbackOrbWait wait = CallbackOrbWait.current();
        if (wait == null) {
            return original.invokeExact(room, mediator);
        }
        return wait.runOriginal(() -> original.invokeExact(room, mediator), null);
    }

    /**
     * In place of {@code desc.condition.awaitNanos(nanos)} in the original loop (the caller holds {@code desc.lock}):
     * waits, or throws {@link CallbackOrbWait#CALLBACK_QUEUED} when the thread has an armed wait and a callback is
     * queued for it.
     *
     * @param desc the call's {@code OutCallDesc}
     * @return as {@code awaitNanos}: the time left, {@code <= 0} when it is up
     */
    public static long awaitNanos(Object desc, long nanos, MethodHandles.Lookup lookup) throws InterruptedException {
        Handles h;
        try {
            h = handles(lookup);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e); // cannot happen: waitForResponse resolved them for this class
        }
        Condition condition = (Condition) h.condition.get(desc);
        CallbackOrbWait wait = CallbackOrbWait.current();
        if (wait == null) {
            return condition.awaitNanos(nanos);
        }
        wait.beforeWait((ReentrantLock) h.lock.get(desc), condition);
        long bounded = wait.boundedNanos(nanos);
        if (bounded <= 0) {
            return bounded; // the ORB's timeout has passed across the re-entries
        }
        long start = System.nanoTime();
        long left;
        try {
            left = condition.awaitNanos(bounded);
        } catch (InterruptedException e) {
            wait.interrupted();
            left = bounded - (System.nanoTime() - start);
        }
        wait.afterWait();
        return left;
    }

    private static Handles handles(MethodHandles.Lookup lookup) throws ReflectiveOperationException {
        Handles h = handles;
        if (h == null || h.owner != lookup.lookupClass()) {
            Class<?> owner = lookup.lookupClass();
            ClassLoader loader = owner.getClassLoader();
            Class<?> desc = Class.forName(GlassFishReplyWaitPatch.DESC_CLASS.replace('/', '.'), false, loader);
            Class<?> mediator = Class.forName("com.sun.corba.ee.spi.protocol.MessageMediator", false, loader);
            Class<?> input = Class.forName("com.sun.corba.ee.impl.encoding.CDRInputObject", false, loader);
            MethodHandle original = lookup.findVirtual(owner, GlassFishReplyWaitPatch.METHOD + JacorbPatch.SUFFIX,
                    MethodType.methodType(input, mediator));
            h = new Handles(owner, original.asType(MethodType.genericMethodType(2)),
                    lookup.findVarHandle(desc, GlassFishReplyWaitPatch.LOCK_FIELD, ReentrantLock.class),
                    lookup.findVarHandle(desc, GlassFishReplyWaitPatch.CONDITION_FIELD, Condition.class));
            handles = h;
        }
        return h;
    }
}

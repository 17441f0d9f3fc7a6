package org.dthreads.iiop;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.concurrent.CompletableFuture;
import org.dthreads.iiop.amiidl.AMI_EchoHandler;
import org.dthreads.iiop.amiidl.AMI_EchoHandlerHelper;
import org.dthreads.iiop.amiidl.AMI_EchoHandlerPOA;
import org.dthreads.iiop.amiidl.Echo;
import org.dthreads.iiop.amiidl.EchoHelper;
import org.dthreads.iiop.amiidl.EchoPOA;
import org.dthreads.iiop.amiidl._EchoStub;
import org.dthreads.iiop.internal.FastPaths;
import org.dthreads.iiop.support.Orbs;
import org.dthreads.internal.KernelLink;
import org.dthreads.monitor.internal.DiagnosticRows;
import org.junit.jupiter.api.Test;
import org.omg.CORBA.ORB;
import org.omg.Messaging.ExceptionHolder;
import org.omg.PortableServer.POA;

/**
 * Issue 15 §5: an asynchronous invocation ({@code sendc_}, JacORB's AMI callback model) whose reply is handled
 * on another thread must not leave the sending thread marked as in an outgoing call (it goes on running: a
 * callback of its class taking over its monitors would break exclusion). On the JacORB fast path and on the
 * Portable Interceptor path ({@code -Ddthreads.iiop.path=portable}). An AMI request is another logical thread,
 * like a oneway: it carries a fresh class. A synchronous call after it still carries the caller's class.
 */
class JacorbAmiTest {

    static final class EchoServant extends EchoPOA {
        @Override
        public long seen() {
            return KernelLink.currentClass();
        }
    }

    static final class Handler extends AMI_EchoHandlerPOA {
        final CompletableFuture<long[]> reply = new CompletableFuture<>();

        @Override
        public void seen(long classSeen) {
            reply.complete(new long[] {classSeen, Thread.currentThread().getId()});
        }

        @Override
        public void seen_excep(ExceptionHolder holder) {
            reply.completeExceptionally(new IllegalStateException("the AMI request failed"));
        }
    }

    @Test
    void anAmiReplyOnAnotherThreadLeavesNoOutgoingCallOnTheFastPath() throws Exception {
        sendAsynchronously(false);
    }

    @Test
    void anAmiReplyOnAnotherThreadLeavesNoOutgoingCallOnThePortablePath() throws Exception {
        sendAsynchronously(true);
    }

    /** Runs on a thread of its own, so that what one case leaves on its thread cannot pass or fail the other. */
    private static void sendAsynchronously(boolean portable) throws Exception {
        java.util.concurrent.FutureTask<Void> task = new java.util.concurrent.FutureTask<>(() -> {
            sendAsynchronouslyHere(portable);
            return null;
        });
        Thread sender = new Thread(task, "ami-sender-" + (portable ? "portable" : "fast"));
        sender.start();
        try {
            task.get(60, SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof AssertionError a) {
                throw a;
            }
            throw e;
        }
    }

    private static void sendAsynchronouslyHere(boolean portable) throws Exception {
        ORB server;
        ORB client;
        if (portable) {
            System.setProperty(FastPaths.PATH_PROPERTY, "portable");
        }
        try {
            server = Orbs.init(Orbs.Kind.JACORB, true);
            client = Orbs.init(Orbs.Kind.JACORB, true);
        } finally {
            System.clearProperty(FastPaths.PATH_PROPERTY);
        }
        try {
            Orbs.runInBackground(server, "ami-server");
            Orbs.runInBackground(client, "ami-client");
            POA serverPoa = Orbs.rootPoa(server);
            POA clientPoa = Orbs.rootPoa(client);
            Echo echo = EchoHelper.narrow(client.string_to_object(
                    server.object_to_string(serverPoa.servant_to_reference(new EchoServant()))));
            long mine = KernelLink.currentClass();
            assertEquals(mine, echo.seen(), "a synchronous call carries the caller's class");

            for (int i = 0; i < 3; i++) {
                Handler handler = new Handler();
                AMI_EchoHandler handlerRef = AMI_EchoHandlerHelper.narrow(clientPoa.servant_to_reference(handler));
                ((_EchoStub) echo).sendc_seen(handlerRef);
                long[] reply = handler.reply.get(20, SECONDS);
                assertNotEquals(Thread.currentThread().getId(), reply[1], "premise: the reply is handled elsewhere");
                assertFalse(DiagnosticRows.suspendedThreads().containsKey(Thread.currentThread()),
                        "the sender goes on running: it is not in an outgoing call");
                assertNotEquals(mine, reply[0], "an AMI request is another logical thread");
            }
            assertEquals(mine, echo.seen(), "a synchronous call after them still carries the caller's class");
            assertFalse(DiagnosticRows.suspendedThreads().containsKey(Thread.currentThread()));
        } finally {
            Orbs.shutdown(client);
            Orbs.shutdown(server);
        }
    }
}

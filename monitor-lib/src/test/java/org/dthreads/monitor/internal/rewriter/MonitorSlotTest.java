package org.dthreads.monitor.internal.rewriter;

import static org.awaitility.Awaitility.await;
import static org.dthreads.monitor.internal.rewriter.MonitorRewriterTest.FIXTURES;
import static org.dthreads.monitor.internal.rewriter.MonitorRewriterTest.call;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.Gson;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.dthreads.monitor.Monitors;
import org.dthreads.monitor.internal.MonitorRuntime;
import org.dthreads.monitor.internal.rewriter.fixtures.Account;
import org.dthreads.monitor.internal.rewriter.fixtures.SavingsAccount;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.FieldNode;
import org.objectweb.asm.util.CheckClassAdapter;

/**
 * The monitor slot (issue 16): the field the rewriter adds, and the runtime keeping a rewritten object's
 * monitor there. Every path must find the one monitor; serialization, equals/hashCode and what Gson sees must
 * not change; a cloned object must not share its original's monitor.
 */
@Timeout(60)
class MonitorSlotTest {
    private static final String SLOT = "$dthreads$monitor";
    private static Class<?> account;
    private static Class<?> savings;

    @BeforeAll
    static void load() throws Exception {
        MonitorRewriterTest.RewritingLoader loader = new MonitorRewriterTest.RewritingLoader();
        account = Class.forName(FIXTURES + "Account", true, loader);
        savings = Class.forName(FIXTURES + "SavingsAccount", true, loader);
    }

    private static Object newAccount() throws Exception {
        return account.getConstructor().newInstance();
    }

    private static Object slotOf(Object o, Class<?> declaring) throws Exception {
        Field f = declaring.getDeclaredField(SLOT);
        f.setAccessible(true);
        return f.get(o);
    }

    /** Leaves a monitor in {@code o}'s slot for good: a wait inflates a thin hold. */
    private static Object inflated(Object o) throws Exception {
        Monitors.enter(o);
        try {
            Monitors.waitOn(o, 1);
        } finally {
            Monitors.exit(o);
        }
        assertNotNull(slotOf(o, account), "a waited-on monitor stays in the slot");
        return o;
    }

    /** The slot's value while the rewritten code holds {@code o}'s monitor (a thin value if uncontended). */
    private static Object slotWhileLocked(Object o, Class<?> declaring) throws Exception {
        Object[] seen = new Object[1];
        call(o, "whileLocked", (Runnable) () -> {
            try {
                seen[0] = slotOf(o, declaring);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        return seen[0];
    }

    @Test
    void theRewrittenClassDeclaresAPrivateTransientSyntheticObjectSlotAndVerifies() throws Exception {
        for (Class<?> type : new Class<?>[] {Account.class, SavingsAccount.class}) {
            byte[] bytes = MonitorRewriterTest.rewrite(type).bytes();
            StringWriter problems = new StringWriter();
            CheckClassAdapter.verify(new ClassReader(bytes), getClass().getClassLoader(), false, new PrintWriter(problems));
            assertEquals("", problems.toString());
            ClassNode node = new ClassNode();
            new ClassReader(bytes).accept(node, 0);
            FieldNode slot = node.fields.stream().filter(f -> f.name.equals(SLOT)).findFirst().orElseThrow();
            assertEquals(Opcodes.ACC_PRIVATE | Opcodes.ACC_TRANSIENT | Opcodes.ACC_SYNTHETIC, slot.access);
            assertEquals("Ljava/lang/Object;", slot.desc);
            assertEquals(SlotFieldAdder.NAME, SLOT);
        }
        Field loaded = account.getDeclaredField(SLOT);
        assertTrue(loaded.isSynthetic() && Modifier.isTransient(loaded.getModifiers()));
    }

    @Test
    void theMonitorOfASlottedObjectLivesInItsSlotNotInTheTable() throws Exception {
        Object[] accounts = new Object[200];
        int before = MonitorRuntime.tableSize();
        for (int i = 0; i < accounts.length; i++) {
            accounts[i] = newAccount();
            call(accounts[i], "deposit", 1L);
        }
        assertTrue(MonitorRuntime.tableSize() - before < accounts.length / 2,
                "fresh slotted objects must not be bound in the table: " + (MonitorRuntime.tableSize() - before));
        for (Object a : accounts) {
            assertNull(slotOf(a, account), "a thin hold leaves nothing behind");
        }
        assertNotNull(slotWhileLocked(accounts[0], account), "held: the slot says so");
    }

    @Test
    void theGenericPathsFindTheSameMonitorAsTheRewrittenCode() throws Exception {
        Object a = newAccount();
        call(a, "deposit", 1L); // installs the slot through the rewritten code
        Monitors.enter(a); // the generic path (a non-slotted static type)
        try {
            assertTrue(Monitors.holdsLock(a));
            CompletableFuture<Object> other = CompletableFuture.supplyAsync(() -> {
                try {
                    return call(a, "deposit", 2L);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(200); // long enough for an unexcluded deposit to finish; the assertion below is what fails
            assertFalse(other.isDone(), "the synchronized method must wait for the monitor Monitors.enter holds");
            Monitors.exit(a);
            other.get(10, TimeUnit.SECONDS);
            Monitors.enter(a);
        } finally {
            Monitors.exit(a);
        }
        assertEquals(3L, call(a, "balance"));
        assertEquals(false, call(a, "holdsOwnLock"));
        AtomicBoolean inside = new AtomicBoolean();
        call(a, "whileLocked", (Runnable) () -> inside.set(Monitors.holdsLock(a)));
        assertTrue(inside.get(), "synchronized (this) and the synchronized methods share the slot's monitor");
    }

    @Test
    void waitAndNotifyAcrossRewrittenCodeAndTheGenericPath() throws Exception {
        Object a = newAccount();
        CompletableFuture<Object> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                return call(a, "awaitBalance", 5L, 10_000L);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> slotOf(a, account) != null
                
                && MonitorRuntime.dumpRows().stream().anyMatch(r -> r[0].equals(System.identityHashCode(a))));
        Monitors.enter(a);
        try {
            call(a, "deposit", 5L); // re-entrant: the same monitor
            Monitors.notifyAll(a);
        } finally {
            Monitors.exit(a);
        }
        assertEquals(5L, waiter.get(10, TimeUnit.SECONDS));
    }

    @Test
    void aContendedSlotMonitorIsListedForDiagnostics() throws Exception {
        Object a = newAccount();
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            try {
                call(a, "whileLocked", (Runnable) () -> {
                    held.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        holder.start();
        assertTrue(held.await(10, TimeUnit.SECONDS));
        Thread entrant = new Thread(() -> {
            try {
                call(a, "deposit", 1L);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        entrant.start();
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> MonitorRuntime.dumpRows().stream()
                    .anyMatch(r -> r[0].equals(System.identityHashCode(a))));
        } finally {
            release.countDown();
            holder.join(10_000);
            entrant.join(10_000);
        }
        assertEquals(1L, call(a, "balance"));
    }

    /** Leaves two daemon threads stuck on objects of this test only (an emulated entry cannot be broken). */
    @Test
    void anAbBaOnSlotMonitorsIsFoundByTheDeadlockCheck() throws Exception {
        Object a = newAccount();
        Object b = newAccount();
        CountDownLatch bothHoldOne = new CountDownLatch(2);
        Thread one = lockInOrder("slot-abba-one", a, b, bothHoldOne);
        Thread two = lockInOrder("slot-abba-two", b, a, bothHoldOne);
        // other tests of this JVM leave deadlocked daemons too: ours must be among the threads found
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            long[] found = org.dthreads.monitor.Deadlocks.findDeadlockedThreads();
            return found != null && Arrays.stream(found).anyMatch(id -> id == one.getId())
                    && Arrays.stream(found).anyMatch(id -> id == two.getId());
        });
        String dump = org.dthreads.monitor.Deadlocks.threadDump();
        assertTrue(dump.contains(String.format("<0x%08x>", System.identityHashCode(a))), dump);
    }

    private static Thread lockInOrder(String name, Object first, Object second, CountDownLatch bothHoldOne) {
        Thread t = new Thread(() -> {
            try {
                call(first, "whileLocked", (Runnable) () -> {
                    bothHoldOne.countDown();
                    try {
                        bothHoldOne.await();
                        call(second, "deposit", 1L);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    @Test
    void aCloneMadeWhileLockedIsNotLocked() throws Exception {
        Object original = newAccount();
        call(original, "deposit", 1L);
        Object[] copy = new Object[1];
        call(original, "whileLocked", (Runnable) () -> {
            try {
                copy[0] = call(original, "clone"); // re-enters; the copy's slot is the original's thin value
                assertSame(slotOf(original, account), slotOf(copy[0], account), "clone copies the slot as it is");
                assertNotNull(slotOf(copy[0], account));
                assertFalse(Monitors.holdsLock(copy[0]), "a copied thin value holds nothing");
                CompletableFuture<Object> onCopy = CompletableFuture.supplyAsync(() -> {
                    try {
                        call(copy[0], "deposit", 1L);
                        return call(copy[0], "balance");
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                assertEquals(2L, onCopy.get(10, TimeUnit.SECONDS), "another thread takes the copy at once");
                call(copy[0], "deposit", 1L); // and so does the thread whose hold was copied
                assertFalse(Monitors.holdsLock(copy[0]));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertEquals(3L, CompletableFuture.supplyAsync(() -> {
            try {
                return call(copy[0], "balance");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }).get(10, TimeUnit.SECONDS));
        assertEquals(1L, call(original, "balance"));
    }

    @Test
    void aCloneGetsAMonitorOfItsOwn() throws Exception {
        Object original = inflated(newAccount());
        call(original, "deposit", 1L);
        Object copy = call(original, "clone");
        assertSame(slotOf(original, account), slotOf(copy, account), "clone copies the slot as it is");
        Monitors.enter(original);
        try {
            CompletableFuture<Object> onCopy = CompletableFuture.supplyAsync(() -> {
                try {
                    call(copy, "deposit", 1L);
                    return call(copy, "balance");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertEquals(2L, onCopy.get(10, TimeUnit.SECONDS), "the copy's monitor is not the original's");
            assertFalse(Monitors.holdsLock(copy));
        } finally {
            Monitors.exit(original);
        }
        assertNotSame(slotOf(original, account), slotOf(copy, account));
    }

    @Test
    void aSubclassUsesTheTopmostSlot() throws Exception {
        Object s = savings.getConstructor().newInstance();
        call(s, "deposit", 10L);
        call(s, "addInterest");
        assertEquals(15L, call(s, "balance"));
        assertNotNull(slotWhileLocked(s, account));
        assertNull(slotWhileLocked(s, savings), "the subclass's own slot stays unused");
        inflated(s);
        assertNotNull(slotOf(s, account));
        assertNull(slotOf(s, savings));
    }

    @Test
    void serializationIsUnchanged() throws Exception {
        assertEquals(ObjectStreamClass.lookup(Account.class).getSerialVersionUID(),
                ObjectStreamClass.lookup(account).getSerialVersionUID());
        assertEquals(ObjectStreamClass.lookup(SavingsAccount.class).getSerialVersionUID(),
                ObjectStreamClass.lookup(savings).getSerialVersionUID());
        assertEquals(Arrays.toString(ObjectStreamClass.lookup(Account.class).getFields()),
                Arrays.toString(ObjectStreamClass.lookup(account).getFields()));
        Account plain = new Account();
        plain.deposit(7);
        Object rewritten = newAccount();
        call(rewritten, "deposit", 7L);
        byte[] plainBytes = serialize(plain);
        assertTrue(Arrays.equals(plainBytes, serialize(rewritten)), "the same stream, byte for byte");
        Object plainToRewritten = deserialize(plainBytes, account.getClassLoader());
        assertEquals(account, plainToRewritten.getClass());
        assertNull(slotOf(plainToRewritten, account), "transient: not in the stream");
        assertEquals(7L, call(plainToRewritten, "balance"));
        Object rewrittenToPlain = deserialize(serialize(rewritten), getClass().getClassLoader());
        assertEquals(plain, rewrittenToPlain);
    }

    @Test
    void equalsHashCodeAndGsonSeeTheSameObject() throws Exception {
        Account plain = new Account();
        plain.deposit(3);
        Object rewritten = inflated(newAccount());
        call(rewritten, "deposit", 3L);
        assertEquals(plain.hashCode(), rewritten.hashCode());
        assertEquals(new Account().hashCode(), newAccount().hashCode());
        Object other = newAccount();
        call(other, "deposit", 3L);
        assertEquals(rewritten, other);
        Gson gson = new Gson();
        assertEquals(gson.toJson(plain), gson.toJson(rewritten));
        Object s = savings.getConstructor().newInstance();
        call(s, "deposit", 3L);
        SavingsAccount plainSavings = new SavingsAccount();
        plainSavings.deposit(3);
        assertEquals(gson.toJson(plainSavings), gson.toJson(s));
        Object back = gson.fromJson(gson.toJson(plain), account);
        assertEquals(3L, call(back, "balance"));
    }

    private static byte[] serialize(Object o) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(o);
        }
        return bytes.toByteArray();
    }

    private static Object deserialize(byte[] bytes, ClassLoader target) throws Exception {
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes)) {
            @Override
            protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
                return Class.forName(desc.getName(), false, target);
            }
        }) {
            return in.readObject();
        }
    }
}

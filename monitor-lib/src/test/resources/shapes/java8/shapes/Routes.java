package shapes;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Monitor operations reached other than by a plain call on {@code Object}: method references
 * (invokedynamic), a Thread subclass's inherited {@code holdsLock}, {@code super.notifyAll()}, a receiver
 * type other than Object, reflection and method handles. Every line must read the same rewritten as plain.
 */
public class Routes {

    /** A functional interface for {@code wait(long)}, which throws a checked exception. */
    interface TimedWait {
        void await(long millis) throws InterruptedException;
    }

    /** Inherits the static {@code Thread.holdsLock}: javac emits {@code invokestatic Routes$Worker.holdsLock}. */
    static final class Worker extends Thread {
        String probe(Object lock) {
            String before = "outside=" + holdsLock(lock);
            synchronized (lock) {
                Predicate<Object> viaRef = Worker::holdsLock;
                return before + " inside=" + holdsLock(lock) + " ref=" + viaRef.test(lock);
            }
        }
    }

    /** Hides {@code Thread.holdsLock} and {@code Thread.interrupted} with its own static methods: calls through it must stay its own. */
    static final class Hider extends Thread {
        public static boolean holdsLock(Object o) {
            return true;
        }

        public static boolean interrupted() {
            return true;
        }

        String probe(Object lock) {
            return "hidden=" + holdsLock(lock) + " interruptedHidden=" + interrupted() + "," + Hider.interrupted();
        }
    }

    /** Not a Thread: its own interrupt(), isInterrupted(), static holdsLock(Object) and interrupted() must stay its own. */
    static final class Task {
        boolean stopped;

        void interrupt() {
            stopped = true;
        }

        boolean isInterrupted() {
            return !stopped;
        }

        static boolean interrupted() {
            return true;
        }

        static boolean holdsLock(Object o) {
            return true;
        }
    }

    /** {@code super.notifyAll()}: javac emits {@code invokespecial Object.notifyAll}. */
    static class Base {
    }

    static final class Sub extends Base {
        String notifySuper() {
            synchronized (this) {
                super.notifyAll();
                super.notify();
                return "super-notified";
            }
        }
    }

    private String secret() {
        return "private-reflected";
    }

    public static String run() throws Exception {
        List<String> out = new ArrayList<String>();
        final Object lock = new Object();
        out.add(attempt("boundRef", () -> {
            synchronized (lock) {
                Runnable r = lock::notify;
                r.run();
                Runnable all = lock::notifyAll;
                all.run();
            }
        }));
        out.add(attempt("unboundRef", () -> {
            synchronized (lock) {
                Consumer<Object> c = Object::notifyAll;
                c.accept(lock);
            }
        }));
        out.add(attempt("waitRef", () -> {
            synchronized (lock) {
                TimedWait w = lock::wait;
                w.await(1L);
            }
        }));
        out.add(attempt("refOutside", () -> {
            Runnable r = lock::notify;
            r.run();
        }));
        final String text = new String("text");
        out.add(attempt("stringOwner", () -> {
            synchronized (text) {
                text.notifyAll();
                text.wait(1L);
            }
        }));
        out.add(new Worker().probe(lock));
        out.add(new Hider().probe(lock));
        out.add(new Sub().notifySuper());
        Task task = new Task();
        task.interrupt();
        out.add("task stopped=" + task.stopped + " holds=" + Task.holdsLock(lock) + " isInterrupted="
                + task.isInterrupted() + " interrupted=" + Task.interrupted());
        out.add(attempt("statusRoutes", () -> {
            Thread.currentThread().interrupt();
            boolean seen = Thread.currentThread().isInterrupted();
            java.util.function.BooleanSupplier take = Thread::interrupted;
            boolean first = take.getAsBoolean();
            boolean again = Worker.interrupted();
            Thread other = new Thread();
            other.interrupt();
            boolean reflected = (Boolean) Thread.class.getMethod("isInterrupted").invoke(other);
            java.util.function.Predicate<Thread> status = Thread::isInterrupted;
            throw new IllegalStateException("seen=" + seen + " first=" + first + " again=" + again + " other="
                    + reflected + "," + status.test(other));
        }));
        out.add(attempt("reflectNotify", () -> {
            synchronized (lock) {
                Object.class.getMethod("notifyAll").invoke(lock);
                Object.class.getMethod("wait", long.class).invoke(lock, 1L);
            }
        }));
        out.add(attempt("reflectHolds", () -> {
            Method holds = Thread.class.getMethod("holdsLock", Object.class);
            String outside = "outside=" + holds.invoke(null, lock);
            synchronized (lock) {
                throw new IllegalStateException(outside + " inside=" + holds.invoke(null, lock));
            }
        }));
        out.add(attempt("reflectBadTimeout", () -> {
            synchronized (lock) {
                Object.class.getMethod("wait", long.class).invoke(lock, -1L);
            }
        }));
        out.add(attempt("reflectNullReceiver", () -> Object.class.getMethod("notify").invoke(null)));
        out.add(attempt("reflectOutside", () -> Object.class.getMethod("notify").invoke(lock)));
        out.add(attempt("reflectOther", () -> {
            throw new IllegalStateException((String) Routes.class.getDeclaredMethod("secret").invoke(new Routes()));
        }));
        out.add(attempt("findVirtual", () -> {
            MethodHandle notify = MethodHandles.lookup().findVirtual(Object.class, "notify", MethodType.methodType(void.class));
            MethodHandle waitFor = MethodHandles.publicLookup().findVirtual(Object.class, "wait",
                    MethodType.methodType(void.class, long.class, int.class));
            synchronized (lock) {
                notify.invokeExact(lock);
                waitFor.invoke(lock, 1L, 0);
            }
        }));
        out.add(attempt("findVirtualString", () -> {
            MethodHandle notify = MethodHandles.lookup().findVirtual(String.class, "notifyAll", MethodType.methodType(void.class));
            synchronized (text) {
                notify.invokeExact(text);
            }
        }));
        out.add(attempt("findStatic", () -> {
            MethodHandle holds = MethodHandles.lookup().findStatic(Thread.class, "holdsLock",
                    MethodType.methodType(boolean.class, Object.class));
            synchronized (lock) {
                throw new IllegalStateException("holds=" + (boolean) holds.invokeExact(lock));
            }
        }));
        out.add(attempt("unreflect", () -> {
            MethodHandle notify = MethodHandles.lookup().unreflect(Object.class.getMethod("notifyAll"));
            synchronized (lock) {
                notify.invoke(lock);
            }
            notify.invoke(lock);
        }));
        out.add(attempt("bind", () -> {
            MethodHandle notify = MethodHandles.lookup().bind(lock, "notify", MethodType.methodType(void.class));
            synchronized (lock) {
                notify.invokeExact();
            }
        }));
        final Routes self = new Routes();
        out.add(attempt("findSpecial", () -> {
            MethodHandle notify = MethodHandles.lookup().findSpecial(Object.class, "notifyAll",
                    MethodType.methodType(void.class), Routes.class);
            MethodHandle unreflected = MethodHandles.lookup().unreflectSpecial(Object.class.getMethod("notify"), Routes.class);
            synchronized (self) {
                notify.invoke(self);
                unreflected.invoke(self);
            }
        }));
        out.add(attempt("interruptByReflection", () -> {
            Thread sleeper = new Thread();
            Thread.class.getMethod("interrupt").invoke(sleeper);
            MethodHandle viaHandle = MethodHandles.lookup().findVirtual(Thread.class, "interrupt", MethodType.methodType(void.class));
            Thread other = new Thread();
            viaHandle.invokeExact(other);
            throw new IllegalStateException("interrupted=" + sleeper.isInterrupted() + "," + other.isInterrupted());
        }));
        out.add(attempt("findOther", () -> {
            MethodHandle length = MethodHandles.lookup().findVirtual(String.class, "length", MethodType.methodType(int.class));
            throw new IllegalStateException("length=" + (int) length.invokeExact("four"));
        }));
        return out.toString();
    }

    interface Body {
        void run() throws Throwable;
    }

    /** "name:ok", or the exception's type (the cause's, for reflection) and an IllegalStateException's message. */
    static String attempt(String name, Body body) {
        try {
            body.run();
            return name + ":ok";
        } catch (InvocationTargetException e) {
            return name + ":ITE(" + e.getCause().getClass().getSimpleName() + ")";
        } catch (IllegalStateException e) {
            return name + ":" + e.getMessage();
        } catch (Throwable e) {
            return name + ":" + e.getClass().getSimpleName();
        }
    }
}

package org.dthreads.iiop.internal;

import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.dthreads.internal.RateLimitedLog;
import org.dthreads.monitor.internal.callbacks.CallbackMode;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Load-time patch of JacORB for the JacORB fast path ({@link JacorbHooks}): each hooked method is renamed
 * to {@code name$dthreads} (its code untouched) and a wrapper with the original name, access and
 * descriptor calls the hook around it.
 *
 * <ul>
 *   <li>{@code org.jacorb.orb.Delegate.invoke_internal(Object, OutputStream, ReplyHandler, boolean)}: every
 *       remote invocation (stubs, DII, AMI) runs it once per request stream, on the invoking thread, before
 *       the request is written: {@link JacorbHooks#clientBegin} adds the context to the stream and marks a
 *       synchronous two-way caller as waiting; {@link JacorbHooks#clientEnd} in a {@code finally}.</li>
 *   <li>{@code Delegate.servant_preinvoke} / {@code servant_postinvoke}: a collocated call served on the
 *       caller's thread ({@link JacorbHooks#localBegin}, {@link JacorbHooks#localEnd}).</li>
 *   <li>{@code org.jacorb.poa.RequestProcessor.process()}: the thread that runs the servant, around the
 *       whole dispatch ({@link JacorbHooks#serverBegin} with the private {@code request} field,
 *       {@link JacorbHooks#serverEnd} in a {@code finally}).</li>
 * </ul>
 * With {@code -Ddthreads.callbacks=original} (read once, when the class is patched) the wrapper of
 * {@code invoke_internal} calls {@link JacorbCallbacks#invoke} in place of the renamed original, and the wrapper of
 * {@code process()} is a single call of {@link JacorbCallbacks#process}, which binds, dispatches and unbinds on
 * whichever thread runs the request; both pass {@code MethodHandles.lookup()} so the renamed private method can be
 * called from there; and {@code ReplyPlaceholder}'s reply wait is opened to callbacks ({@link JacorbReplyWaitPatch}).
 * The default mode's wrappers are the ones above, unchanged.
 *
 * <p>Version guard: a class is patched only if every hook point of it is there with the expected
 * descriptor (checked on the class bytes before anything is changed) and {@link JacorbHooks} is visible
 * from the class's loader; otherwise the class stays as it is, one line is logged naming the missing
 * point, and {@code DThreadsOrbInitializer} keeps the Portable Interceptor path (it looks for the
 * renamed methods). Verified against JacORB 3.9 and 3.8. The wrappers' frames are written by hand
 * (nothing is loaded to compute them).
 */
public final class JacorbPatch implements ClassFileTransformer {

    private static final RateLimitedLog LOG = RateLimitedLog.forClass(JacorbPatch.class);

    static final String SUFFIX = "$dthreads";
    static final String DELEGATE = "org/jacorb/orb/Delegate";
    static final String REQUEST_PROCESSOR = "org/jacorb/poa/RequestProcessor";
    /** Built at run time so that the agent's shading never rewrites it. */
    private static final String HOOKS = String.join("/", "org", "dthreads", "iiop", "internal", "JacorbHooks");
    private static final String CALLBACKS = String.join("/", "org", "dthreads", "iiop", "internal", "JacorbCallbacks");
    private static final String LOOKUP = "Ljava/lang/invoke/MethodHandles$Lookup;";

    static final String INVOKE_INTERNAL = "invoke_internal";
    static final String INVOKE_INTERNAL_DESC = "(Lorg/omg/CORBA/Object;Lorg/omg/CORBA/portable/OutputStream;"
            + "Lorg/omg/Messaging/ReplyHandler;Z)Lorg/omg/CORBA/portable/InputStream;";
    static final String PREINVOKE = "servant_preinvoke";
    static final String PREINVOKE_DESC = "(Lorg/omg/CORBA/Object;Ljava/lang/String;Ljava/lang/Class;)"
            + "Lorg/omg/CORBA/portable/ServantObject;";
    static final String POSTINVOKE = "servant_postinvoke";
    static final String POSTINVOKE_DESC = "(Lorg/omg/CORBA/Object;Lorg/omg/CORBA/portable/ServantObject;)V";
    static final String PROCESS = "process";
    static final String PROCESS_DESC = "()V";
    static final String REQUEST_FIELD = "request";
    static final String REQUEST_FIELD_DESC = "Lorg/jacorb/orb/dsi/ServerRequest;";

    private static final String O = "Ljava/lang/Object;";

    @Override
    public byte[] transform(Module module, ClassLoader loader, String className, Class<?> redefined,
            ProtectionDomain domain, byte[] bytes) {
        if (JacorbInlinePatch.REQUEST_OUTPUT_STREAM.equals(className)) { // issue 22: the identity context inline
            return redefined != null || bytes == null || !hooksVisible(loader) ? null : JacorbInlinePatch.transform(bytes);
        }
        if (JacorbReplyWaitPatch.REPLY_PLACEHOLDER.equals(className)) { // issue 18: the caller waits, taking callbacks
            return redefined != null || bytes == null || !CallbackMode.ORIGINAL || !hooksVisible(loader) ? null
                    : JacorbReplyWaitPatch.transform(bytes);
        }
        if (JacorbReplyWaitPatch.TIMER.equals(className)) { // issue 18: a callback's wake-up is not the deadline
            return redefined != null || bytes == null || !CallbackMode.ORIGINAL || !hooksVisible(loader) ? null
                    : JacorbReplyWaitPatch.transformTimer(bytes);
        }
        if (redefined != null || bytes == null || !(DELEGATE.equals(className) || REQUEST_PROCESSOR.equals(className))) {
            return null;
        }
        try {
            if (!hooksVisible(loader)) {
                LOG.warn("jacorb-patch-no-hooks", "dthreads: JacORB fast path off: " + className.replace('/', '.')
                        + " is loaded where dthreads' iiop-adapter is not visible; using Portable Interceptors");
                return null;
            }
            if (alreadyPatched(bytes)) {
                return null; // patched before (another transformer chain, a class defined from patched bytes)
            }
            String missing = missingHookPoint(bytes, className);
            if (missing != null) {
                LOG.warn("jacorb-patch-missing", "dthreads: JacORB fast path off: hook point " + missing
                        + " not found in this JacORB version; using Portable Interceptors");
                return null;
            }
            return patch(bytes, className, CallbackMode.ORIGINAL);
        } catch (RuntimeException | LinkageError e) {
            LOG.error("jacorb-patch-failed", "dthreads: could not patch " + className.replace('/', '.')
                    + "; JacORB fast path off, using Portable Interceptors: " + e);
            return null;
        }
    }

    private static boolean hooksVisible(ClassLoader loader) {
        String resource = HOOKS + ".class";
        return loader == null ? ClassLoader.getSystemResource(resource) != null : loader.getResource(resource) != null;
    }

    static boolean alreadyPatched(byte[] bytes) {
        boolean[] found = {false};
        new ClassReader(bytes).accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                    String[] exceptions) {
                found[0] |= name.endsWith(SUFFIX);
                return null;
            }
        }, ClassReader.SKIP_CODE);
        return found[0];
    }

    /** The first hook point {@code bytes} lacks, as {@code Class.method(descriptor)}, or null if all are there. */
    static String missingHookPoint(byte[] bytes, String className) {
        Set<String> members = new HashSet<>();
        new ClassReader(bytes).accept(new ClassVisitor(Opcodes.ASM9) {
            @Override
            public FieldVisitor visitField(int access, String name, String descriptor, String signature, Object value) {
                if ((access & Opcodes.ACC_STATIC) == 0) {
                    members.add("field " + name + descriptor);
                }
                return null;
            }

            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                    String[] exceptions) {
                if ((access & (Opcodes.ACC_STATIC | Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) == 0) {
                    members.add(name + descriptor);
                }
                return null;
            }
        }, ClassReader.SKIP_CODE);
        for (String m : required(className)) {
            if (!members.contains(m)) {
                return className.replace('/', '.') + "." + m;
            }
        }
        return null;
    }

    private static List<String> required(String className) {
        List<String> r = new ArrayList<>();
        if (DELEGATE.equals(className)) {
            r.add(INVOKE_INTERNAL + INVOKE_INTERNAL_DESC);
            r.add(PREINVOKE + PREINVOKE_DESC);
            r.add(POSTINVOKE + POSTINVOKE_DESC);
        } else {
            r.add(PROCESS + PROCESS_DESC);
            r.add("field " + REQUEST_FIELD + REQUEST_FIELD_DESC);
        }
        return r;
    }

    /** Renames the hooked methods of {@code className} and adds the wrappers. Precondition: no hook point missing. */
    static byte[] patch(byte[] bytes, String className) {
        return patch(bytes, className, false);
    }

    /**
     * As {@link #patch(byte[], String)}; with {@code originalCallbacks} ({@code -Ddthreads.callbacks=original}) the
     * wrappers of {@code invoke_internal} and {@code process} call {@link JacorbCallbacks} instead of the renamed
     * originals.
     */
    static byte[] patch(byte[] bytes, String className, boolean originalCallbacks) {
        ClassReader reader = new ClassReader(bytes);
        ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
        boolean delegate = DELEGATE.equals(className);
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            private boolean frames;
            private final List<Object[]> wrapped = new ArrayList<>();

            @Override
            public void visit(int version, int access, String name, String signature, String superName, String[] interfaces) {
                frames = (version & 0xFFFF) >= Opcodes.V1_6;
                super.visit(version, access, name, signature, superName, interfaces);
            }

            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                    String[] exceptions) {
                if (hooked(delegate, name, descriptor) && (access & Opcodes.ACC_STATIC) == 0) {
                    wrapped.add(new Object[] {access, name, descriptor, signature, exceptions});
                    int renamed = (access & ~(Opcodes.ACC_PUBLIC | Opcodes.ACC_PROTECTED)) | Opcodes.ACC_PRIVATE
                            | Opcodes.ACC_SYNTHETIC;
                    return super.visitMethod(renamed, name + SUFFIX, descriptor, signature, exceptions);
                }
                return super.visitMethod(access, name, descriptor, signature, exceptions);
            }

            @Override
            public void visitEnd() {
                for (Object[] w : wrapped) {
                    int access = (Integer) w[0] & ~Opcodes.ACC_SYNCHRONIZED;
                    String name = (String) w[1];
                    MethodVisitor mv = super.visitMethod(access, name, (String) w[2], (String) w[3], (String[]) w[4]);
                    mv.visitCode();
                    switch (name) {
                        case INVOKE_INTERNAL -> invokeInternal(mv, className, frames, originalCallbacks);
                        case PREINVOKE -> preinvoke(mv, className);
                        case POSTINVOKE -> postinvoke(mv, className);
                        default -> {
                            if (originalCallbacks) {
                                processOriginal(mv, className);
                            } else {
                                process(mv, className, frames);
                            }
                        }
                    }
                    mv.visitMaxs(0, 0);
                    mv.visitEnd();
                }
                super.visitEnd();
            }
        }, 0);
        return writer.toByteArray();
    }

    private static boolean hooked(boolean delegate, String name, String descriptor) {
        if (delegate) {
            return (name.equals(INVOKE_INTERNAL) && descriptor.equals(INVOKE_INTERNAL_DESC))
                    || (name.equals(PREINVOKE) && descriptor.equals(PREINVOKE_DESC))
                    || (name.equals(POSTINVOKE) && descriptor.equals(POSTINVOKE_DESC));
        }
        return name.equals(PROCESS) && descriptor.equals(PROCESS_DESC);
    }

    /**
     * <pre>
     * Object token = JacorbHooks.clientBegin(this, self, os, replyHandler);
     * InputStream in;
     * try { in = invoke_internal$dthreads(self, os, replyHandler, async); }
     * catch (Throwable t) { JacorbHooks.clientEnd(token, os, t); throw t; }
     * JacorbHooks.clientEnd(token, os, null);
     * return in;
     * </pre>
     * With {@code originalCallbacks} the call in the {@code try} is
     * {@code (InputStream) JacorbCallbacks.invoke(this, self, os, replyHandler, async, MethodHandles.lookup())}.
     */
    private static void invokeInternal(MethodVisitor mv, String owner, boolean frames, boolean originalCallbacks) {
        Label start = new Label();
        Label end = new Label();
        Label handler = new Label();
        mv.visitTryCatchBlock(start, end, handler, "java/lang/Throwable");
        for (int i = 0; i < 4; i++) {
            mv.visitVarInsn(Opcodes.ALOAD, i);
        }
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, HOOKS, "clientBegin", "(" + O + O + O + O + ")" + O, false);
        mv.visitVarInsn(Opcodes.ASTORE, 5);
        mv.visitLabel(start);
        for (int i = 0; i < 4; i++) {
            mv.visitVarInsn(Opcodes.ALOAD, i);
        }
        mv.visitVarInsn(Opcodes.ILOAD, 4);
        if (originalCallbacks) {
            mv.visitMethodInsn(Opcodes.INVOKESTATIC, "java/lang/invoke/MethodHandles", "lookup", "()" + LOOKUP, false);
            mv.visitMethodInsn(Opcodes.INVOKESTATIC, CALLBACKS, "invoke", "(" + O + O + O + O + "Z" + LOOKUP + ")" + O,
                    false);
            mv.visitTypeInsn(Opcodes.CHECKCAST, "org/omg/CORBA/portable/InputStream");
        } else {
            mv.visitMethodInsn(Opcodes.INVOKESPECIAL, owner, INVOKE_INTERNAL + SUFFIX, INVOKE_INTERNAL_DESC, false);
        }
        mv.visitVarInsn(Opcodes.ASTORE, 6);
        mv.visitLabel(end);
        mv.visitVarInsn(Opcodes.ALOAD, 5);
        mv.visitVarInsn(Opcodes.ALOAD, 2);
        mv.visitInsn(Opcodes.ACONST_NULL);
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, HOOKS, "clientEnd", "(" + O + O + "Ljava/lang/Throwable;)V", false);
        mv.visitVarInsn(Opcodes.ALOAD, 6);
        mv.visitInsn(Opcodes.ARETURN);
        mv.visitLabel(handler);
        if (frames) {
            mv.visitFrame(Opcodes.F_FULL, 6,
                    new Object[] {owner, "org/omg/CORBA/Object", "org/omg/CORBA/portable/OutputStream",
                        "org/omg/Messaging/ReplyHandler", Opcodes.INTEGER, "java/lang/Object"},
                    1, new Object[] {"java/lang/Throwable"});
        }
        mv.visitVarInsn(Opcodes.ASTORE, 6);
        mv.visitVarInsn(Opcodes.ALOAD, 5);
        mv.visitVarInsn(Opcodes.ALOAD, 2);
        mv.visitVarInsn(Opcodes.ALOAD, 6);
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, HOOKS, "clientEnd", "(" + O + O + "Ljava/lang/Throwable;)V", false);
        mv.visitVarInsn(Opcodes.ALOAD, 6);
        mv.visitInsn(Opcodes.ATHROW);
    }

    /** {@code ServantObject so = servant_preinvoke$dthreads(self, op, type); JacorbHooks.localBegin(this, self, so); return so;} */
    private static void preinvoke(MethodVisitor mv, String owner) {
        for (int i = 0; i < 4; i++) {
            mv.visitVarInsn(Opcodes.ALOAD, i);
        }
        mv.visitMethodInsn(Opcodes.INVOKESPECIAL, owner, PREINVOKE + SUFFIX, PREINVOKE_DESC, false);
        mv.visitVarInsn(Opcodes.ASTORE, 4);
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitVarInsn(Opcodes.ALOAD, 1);
        mv.visitVarInsn(Opcodes.ALOAD, 4);
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, HOOKS, "localBegin", "(" + O + O + O + ")V", false);
        mv.visitVarInsn(Opcodes.ALOAD, 4);
        mv.visitInsn(Opcodes.ARETURN);
    }

    /** {@code JacorbHooks.localEnd(so); servant_postinvoke$dthreads(self, so);} */
    private static void postinvoke(MethodVisitor mv, String owner) {
        mv.visitVarInsn(Opcodes.ALOAD, 2);
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, HOOKS, "localEnd", "(" + O + ")V", false);
        for (int i = 0; i < 3; i++) {
            mv.visitVarInsn(Opcodes.ALOAD, i);
        }
        mv.visitMethodInsn(Opcodes.INVOKESPECIAL, owner, POSTINVOKE + SUFFIX, POSTINVOKE_DESC, false);
        mv.visitInsn(Opcodes.RETURN);
    }

    /**
     * <pre>
     * Object request = this.request;
     * JacorbHooks.serverBegin(request);
     * try { process$dthreads(); } finally { JacorbHooks.serverEnd(request); }
     * </pre>
     */
    private static void process(MethodVisitor mv, String owner, boolean frames) {
        Label start = new Label();
        Label end = new Label();
        Label handler = new Label();
        mv.visitTryCatchBlock(start, end, handler, "java/lang/Throwable");
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitFieldInsn(Opcodes.GETFIELD, owner, REQUEST_FIELD, REQUEST_FIELD_DESC);
        mv.visitVarInsn(Opcodes.ASTORE, 1);
        mv.visitVarInsn(Opcodes.ALOAD, 1);
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, HOOKS, "serverBegin", "(" + O + ")V", false);
        mv.visitLabel(start);
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitMethodInsn(Opcodes.INVOKESPECIAL, owner, PROCESS + SUFFIX, PROCESS_DESC, false);
        mv.visitLabel(end);
        mv.visitVarInsn(Opcodes.ALOAD, 1);
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, HOOKS, "serverEnd", "(" + O + ")V", false);
        mv.visitInsn(Opcodes.RETURN);
        mv.visitLabel(handler);
        if (frames) {
            mv.visitFrame(Opcodes.F_FULL, 2, new Object[] {owner, "java/lang/Object"},
                    1, new Object[] {"java/lang/Throwable"});
        }
        mv.visitVarInsn(Opcodes.ASTORE, 2);
        mv.visitVarInsn(Opcodes.ALOAD, 1);
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, HOOKS, "serverEnd", "(" + O + ")V", false);
        mv.visitVarInsn(Opcodes.ALOAD, 2);
        mv.visitInsn(Opcodes.ATHROW);
    }

    /**
     * {@code JacorbCallbacks.process(this, this.request, MethodHandles.lookup());} (it binds and unbinds around
     * {@code process$dthreads}, on whichever thread runs it).
     */
    private static void processOriginal(MethodVisitor mv, String owner) {
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitFieldInsn(Opcodes.GETFIELD, owner, REQUEST_FIELD, REQUEST_FIELD_DESC);
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, "java/lang/invoke/MethodHandles", "lookup", "()" + LOOKUP, false);
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, CALLBACKS, "process", "(" + O + O + LOOKUP + ")V", false);
        mv.visitInsn(Opcodes.RETURN);
    }
}

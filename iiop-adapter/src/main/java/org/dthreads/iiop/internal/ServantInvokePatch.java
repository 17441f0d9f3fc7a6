package org.dthreads.iiop.internal;

import java.lang.instrument.ClassFileTransformer;
import java.nio.charset.StandardCharsets;
import java.security.ProtectionDomain;
import java.util.Set;
import java.util.function.Predicate;
import org.dthreads.internal.RateLimitedLog;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Load-time patch of the skeletons that dispatch IIOP requests to servants: every class declaring
 * {@code OutputStream _invoke(String, InputStream, ResponseHandler)} (the
 * {@code org.omg.CORBA.portable.InvokeHandler} method that IDL-generated {@code FooPOA} skeletons, rmic ties
 * and the GlassFish ORB's dynamic {@code ReflectiveTie} implement) gets the prologue
 *
 * <pre>
 * if ("_dthreads_monitor".equals(operation)) {
 *     Object reply = MonitorRequestHook.serve(this, in, handler);
 *     if (reply != null) return (OutputStream) reply;
 * }
 * </pre>
 *
 * and every class declaring a concrete {@code void invoke(ServerRequest)} (a DSI servant, a subclass of
 * {@code org.omg.PortableServer.DynamicImplementation}) the prologue
 *
 * <pre>
 * if ("_dthreads_monitor".equals(request.operation()) &amp;&amp; MonitorRequestHook.serveDynamic(this, request)) return;
 * </pre>
 *
 * so that a remote monitor request reaches {@link MonitorRequests} on the ORB thread serving it, after the
 * ORB's interceptors bound the request's thread class. {@link MonitorRequestHook} is on the bootstrap class
 * path, reachable from every loader. Every other operation costs one string comparison.
 *
 * <p>Classes patched: those the agent's scope includes (IDL skeletons and ties generated into application
 * packages) and the ORBs' own dynamic ties ({@link #ORB_TIES}), which live in packages the agent never
 * rewrites. No frames are computed from the class hierarchy (nothing is loaded): the two frames the
 * prologue needs have the method's entry locals.
 */
public final class ServantInvokePatch implements ClassFileTransformer {

    private static final RateLimitedLog LOG = RateLimitedLog.forClass(ServantInvokePatch.class);

    static final String INVOKE = "_invoke";
    static final String INVOKE_DESC = "(Ljava/lang/String;Lorg/omg/CORBA/portable/InputStream;"
            + "Lorg/omg/CORBA/portable/ResponseHandler;)Lorg/omg/CORBA/portable/OutputStream;";
    private static final byte[] INVOKE_DESC_BYTES = INVOKE_DESC.getBytes(StandardCharsets.UTF_8);
    /** {@code DynamicImplementation.invoke(ServerRequest)}: DSI servants. */
    static final String DSI_INVOKE = "invoke";
    static final String DSI_INVOKE_DESC = "(Lorg/omg/CORBA/ServerRequest;)V";
    private static final byte[] DSI_INVOKE_DESC_BYTES = DSI_INVOKE_DESC.getBytes(StandardCharsets.UTF_8);
    /** Built at run time so that the agent's shading never rewrites it. */
    private static final String HOOK = String.join("/", "org", "dthreads", "iiop", "internal", "MonitorRequestHook");
    private static final String HOOK_DESC = "(Ljava/lang/Object;Ljava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;";

    /** The ORBs' dynamic ties, outside any agent scope (GlassFish ORB 4.2.5). */
    static final Set<String> ORB_TIES = Set.of("com/sun/corba/ee/impl/presentation/rmi/ReflectiveTie");

    private final Predicate<String> scope;

    /** @param scope internal class names the agent rewrites */
    public ServantInvokePatch(Predicate<String> scope) {
        this.scope = scope;
        // every scan notes these two in its one pass over the constant pool: no second walk per class (issue 16)
        org.dthreads.monitor.internal.rewriter.ClassScan.watch(INVOKE_DESC_BYTES);
        org.dthreads.monitor.internal.rewriter.ClassScan.watch(DSI_INVOKE_DESC_BYTES);
    }

    @Override
    public byte[] transform(Module module, ClassLoader loader, String className, Class<?> redefined,
            ProtectionDomain domain, byte[] bytes) {
        if (className == null || bytes == null || !(ORB_TIES.contains(className) || scope.test(className))
                || className.startsWith("org/dthreads/")
                || !contains(bytes, INVOKE_DESC_BYTES) && !contains(bytes, DSI_INVOKE_DESC_BYTES)) {
            return null;
        }
        try {
            return patch(bytes);
        } catch (RuntimeException | LinkageError e) {
            LOG.error("servant-patch-failed", "dthreads: could not patch " + className.replace('/', '.') + "._invoke;"
                    + " remote monitor operations on its objects will fail: " + e);
            return null;
        }
    }

    /** The patched class, or null if {@code bytes} declares no concrete {@code _invoke}. */
    public static byte[] patch(byte[] bytes) {
        ClassReader reader = new ClassReader(bytes);
        if ((reader.getAccess() & Opcodes.ACC_INTERFACE) != 0) {
            return null;
        }
        ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
        boolean[] patched = {false};
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            private int version;

            @Override
            public void visit(int v, int access, String name, String signature, String superName, String[] interfaces) {
                version = v;
                super.visit(v, access, name, signature, superName, interfaces);
            }

            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
                    String[] exceptions) {
                MethodVisitor mv = super.visitMethod(access, name, descriptor, signature, exceptions);
                if ((access & (Opcodes.ACC_STATIC | Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) != 0) {
                    return mv;
                }
                boolean frames = (version & 0xFFFF) >= Opcodes.V1_6;
                if (name.equals(DSI_INVOKE) && descriptor.equals(DSI_INVOKE_DESC)) {
                    patched[0] = true;
                    return dsiPrologue(mv, frames);
                }
                if (!name.equals(INVOKE) || !descriptor.equals(INVOKE_DESC)) {
                    return mv;
                }
                patched[0] = true;
                return new MethodVisitor(Opcodes.ASM9, mv) {
                    @Override
                    public void visitCode() {
                        super.visitCode();
                        Label notOurs = new Label();
                        Label noServer = new Label();
                        super.visitLdcInsn(MonitorRequestHook.OPERATION);
                        super.visitVarInsn(Opcodes.ALOAD, 1);
                        super.visitMethodInsn(Opcodes.INVOKEVIRTUAL, "java/lang/String", "equals",
                                "(Ljava/lang/Object;)Z", false);
                        super.visitJumpInsn(Opcodes.IFEQ, notOurs);
                        super.visitVarInsn(Opcodes.ALOAD, 0);
                        super.visitVarInsn(Opcodes.ALOAD, 2);
                        super.visitVarInsn(Opcodes.ALOAD, 3);
                        super.visitMethodInsn(Opcodes.INVOKESTATIC, HOOK, "serve", HOOK_DESC, false);
                        super.visitInsn(Opcodes.DUP);
                        super.visitJumpInsn(Opcodes.IFNULL, noServer);
                        super.visitTypeInsn(Opcodes.CHECKCAST, "org/omg/CORBA/portable/OutputStream");
                        super.visitInsn(Opcodes.ARETURN);
                        super.visitLabel(noServer);
                        if (frames) {
                            super.visitFrame(Opcodes.F_SAME1, 0, null, 1, new Object[] {"java/lang/Object"});
                        }
                        super.visitInsn(Opcodes.POP);
                        super.visitLabel(notOurs);
                        if (frames) {
                            super.visitFrame(Opcodes.F_SAME, 0, null, 0, null);
                        }
                        // the original code may start with a frame of its own: never two at one offset
                        super.visitInsn(Opcodes.NOP);
                    }
                };
            }
        }, 0);
        return patched[0] ? writer.toByteArray() : null;
    }

    /**
     * The prologue of a DSI servant's {@code invoke(ServerRequest request)}:
     * {@code if ("_dthreads_monitor".equals(request.operation()) && MonitorRequestHook.serveDynamic(this, request)) return;}
     */
    private static MethodVisitor dsiPrologue(MethodVisitor mv, boolean frames) {
        return new MethodVisitor(Opcodes.ASM9, mv) {
            @Override
            public void visitCode() {
                super.visitCode();
                Label notOurs = new Label();
                super.visitLdcInsn(MonitorRequestHook.OPERATION);
                super.visitVarInsn(Opcodes.ALOAD, 1);
                super.visitMethodInsn(Opcodes.INVOKEVIRTUAL, "org/omg/CORBA/ServerRequest", "operation",
                        "()Ljava/lang/String;", false);
                super.visitMethodInsn(Opcodes.INVOKEVIRTUAL, "java/lang/String", "equals", "(Ljava/lang/Object;)Z",
                        false);
                super.visitJumpInsn(Opcodes.IFEQ, notOurs);
                super.visitVarInsn(Opcodes.ALOAD, 0);
                super.visitVarInsn(Opcodes.ALOAD, 1);
                super.visitMethodInsn(Opcodes.INVOKESTATIC, HOOK, "serveDynamic", DSI_HOOK_DESC, false);
                super.visitJumpInsn(Opcodes.IFEQ, notOurs);
                super.visitInsn(Opcodes.RETURN);
                super.visitLabel(notOurs);
                if (frames) {
                    super.visitFrame(Opcodes.F_SAME, 0, null, 0, null);
                }
                super.visitInsn(Opcodes.NOP); // the original code may start with a frame of its own
            }
        };
    }

    private static final String DSI_HOOK_DESC = "(Ljava/lang/Object;Ljava/lang/Object;)Z";

    /**
     * Whether class file {@code haystack} has the constant {@code needle} (a method declaring it as its
     * descriptor does): asked of the {@link org.dthreads.monitor.internal.rewriter.ClassScan} the monitor
     * transformer already made of this class, which noted both descriptors in its pass over the constant pool (see
     * the constructor). Bytes that are not a class file are searched as they are.
     */
    static boolean contains(byte[] haystack, byte[] needle) {
        try {
            return org.dthreads.monitor.internal.rewriter.ClassScan.of(haystack).hasConstant(needle);
        } catch (RuntimeException notAClassFile) {
            // searched below
        }
        outer:
        for (int i = 0, last = haystack.length - needle.length; i <= last; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}

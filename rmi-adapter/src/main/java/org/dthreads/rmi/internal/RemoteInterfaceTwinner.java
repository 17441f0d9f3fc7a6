package org.dthreads.rmi.internal;

import java.util.ArrayList;
import java.util.List;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * Adds a twin (see {@link Twins}) to every remote method declared by a remote interface.
 *
 * <p>Call-order rules: the class must be an interface already known to extend
 * {@code java.rmi.Remote} and of class-file version 52 (Java 8) or later, since twins are default
 * methods; {@link #rewritten()} is meaningful after {@code visitEnd}. An interface that already
 * declares a twin was rewritten before and is passed through unchanged (the twins are the marker).
 *
 * <p>The interface also gets {@link MonitorPort} as a superinterface: its objects then serve remote monitor
 * operations ({@code synchronized (stub)} at the client).
 *
 * <p>A twin {@code default R m-dthreads(long c, A a) throws E} is:
 * <pre>
 *   if (CallbackMode.ORIGINAL) {                      // a static final: folded away in the default mode
 *       Object r = CallbackHandOff.offer(c, this, &lt;handle of m&gt;, new Object[] {a});
 *       if (r != CallbackHandOff.NOT_HANDED) return (R) r;   // ran on the class's original thread
 *   }
 *   ClassScope s = TwinSupport.enter(c);
 *   try { return this.m(a); } finally { s.close(); }
 * </pre>
 */
final class RemoteInterfaceTwinner extends ClassVisitor {

    private static final String TWIN_SUPPORT = "org/dthreads/rmi/internal/TwinSupport";
    private static final String CLASS_SCOPE = "org/dthreads/ClassScope";
    private static final String CALLBACK_MODE = "org/dthreads/monitor/internal/callbacks/CallbackMode";
    private static final String HAND_OFF = "org/dthreads/monitor/internal/callbacks/CallbackHandOff";
    static final String MONITOR_PORT = "org/dthreads/rmi/internal/MonitorPort";

    private record RemoteMethod(String name, String descriptor, String signature, String[] exceptions) {}

    private final List<RemoteMethod> remoteMethods = new ArrayList<>();
    private String owner;
    private boolean alreadyTwinned;
    private boolean rewritten;

    RemoteInterfaceTwinner(ClassVisitor next) {
        super(Opcodes.ASM9, next);
    }

    @Override
    public void visit(int version, int access, String name, String signature, String superName, String[] interfaces) {
        owner = name;
        // Every rewritten remote interface extends MonitorPort, so its objects serve remote monitor requests.
        if (!java.util.Arrays.asList(interfaces).contains(MONITOR_PORT)) {
            String[] more = java.util.Arrays.copyOf(interfaces, interfaces.length + 1);
            more[interfaces.length] = MONITOR_PORT;
            interfaces = more;
            if (signature != null) {
                signature = signature + "L" + MONITOR_PORT + ";";
            }
        }
        super.visit(version, access, name, signature, superName, interfaces);
    }

    @Override
    public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
        if (Twins.isTwinName(name)) {
            alreadyTwinned = true;
        } else if ((access & (Opcodes.ACC_STATIC | Opcodes.ACC_PRIVATE)) == 0 && !name.startsWith("<")) {
            remoteMethods.add(new RemoteMethod(name, descriptor, signature, exceptions));
        }
        return super.visitMethod(access, name, descriptor, signature, exceptions);
    }

    @Override
    public void visitEnd() {
        if (!alreadyTwinned) {
            for (RemoteMethod m : remoteMethods) {
                emitTwin(m);
            }
            rewritten = !remoteMethods.isEmpty();
        }
        super.visitEnd();
    }

    /** Whether twins were added. */
    boolean rewritten() {
        return rewritten;
    }

    private void emitTwin(RemoteMethod m) {
        String twinDescriptor = Twins.twinDescriptor(m.descriptor());
        String twinSignature = m.signature() == null ? null : Twins.twinDescriptor(m.signature());
        MethodVisitor mv = super.visitMethod(Opcodes.ACC_PUBLIC, Twins.twinName(m.name()), twinDescriptor,
                twinSignature, m.exceptions());
        Type[] params = Type.getArgumentTypes(m.descriptor());
        Type result = Type.getReturnType(m.descriptor());
        int firstParam = 3; // this, long (2 slots)
        int scopeSlot = firstParam;
        for (Type p : params) {
            scopeSlot += p.getSize();
        }
        int resultSlot = scopeSlot + 1;

        Label start = new Label();
        Label end = new Label();
        Label handler = new Label();
        mv.visitCode();
        emitHandOff(mv, m, params, result, firstParam);
        mv.visitTryCatchBlock(start, end, handler, null);
        mv.visitVarInsn(Opcodes.LLOAD, 1);
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, TWIN_SUPPORT, "enter", "(J)L" + CLASS_SCOPE + ";", false);
        mv.visitVarInsn(Opcodes.ASTORE, scopeSlot);
        mv.visitLabel(start);
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        int slot = firstParam;
        for (Type p : params) {
            mv.visitVarInsn(p.getOpcode(Opcodes.ILOAD), slot);
            slot += p.getSize();
        }
        mv.visitMethodInsn(Opcodes.INVOKEINTERFACE, owner, m.name(), m.descriptor(), true);
        if (result.getSort() != Type.VOID) {
            mv.visitVarInsn(result.getOpcode(Opcodes.ISTORE), resultSlot);
        }
        mv.visitVarInsn(Opcodes.ALOAD, scopeSlot);
        mv.visitMethodInsn(Opcodes.INVOKEINTERFACE, CLASS_SCOPE, "close", "()V", true);
        if (result.getSort() != Type.VOID) {
            mv.visitVarInsn(result.getOpcode(Opcodes.ILOAD), resultSlot);
        }
        mv.visitInsn(result.getOpcode(Opcodes.IRETURN));
        mv.visitLabel(end);
        mv.visitLabel(handler);
        mv.visitVarInsn(Opcodes.ASTORE, resultSlot);
        mv.visitVarInsn(Opcodes.ALOAD, scopeSlot);
        mv.visitMethodInsn(Opcodes.INVOKEINTERFACE, CLASS_SCOPE, "close", "()V", true);
        mv.visitVarInsn(Opcodes.ALOAD, resultSlot);
        mv.visitInsn(Opcodes.ATHROW);
        mv.visitMaxs(0, 0);
        mv.visitEnd();
    }

    /** The {@code -Ddthreads.callbacks=original} prologue (see the class comment); falls through to the plain twin. */
    private void emitHandOff(MethodVisitor mv, RemoteMethod m, Type[] params, Type result, int firstParam) {
        Label plain = new Label();
        Label notHanded = new Label();
        mv.visitFieldInsn(Opcodes.GETSTATIC, CALLBACK_MODE, "ORIGINAL", "Z");
        mv.visitJumpInsn(Opcodes.IFEQ, plain);
        mv.visitVarInsn(Opcodes.LLOAD, 1);
        mv.visitVarInsn(Opcodes.ALOAD, 0);
        mv.visitLdcInsn(new Handle(Opcodes.H_INVOKEINTERFACE, owner, m.name(), m.descriptor(), true));
        mv.visitLdcInsn(params.length);
        mv.visitTypeInsn(Opcodes.ANEWARRAY, "java/lang/Object");
        int slot = firstParam;
        for (int i = 0; i < params.length; i++) {
            mv.visitInsn(Opcodes.DUP);
            mv.visitLdcInsn(i);
            mv.visitVarInsn(params[i].getOpcode(Opcodes.ILOAD), slot);
            box(mv, params[i]);
            mv.visitInsn(Opcodes.AASTORE);
            slot += params[i].getSize();
        }
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, HAND_OFF, "offer",
                "(JLjava/lang/Object;Ljava/lang/invoke/MethodHandle;[Ljava/lang/Object;)Ljava/lang/Object;", false);
        mv.visitInsn(Opcodes.DUP);
        mv.visitFieldInsn(Opcodes.GETSTATIC, HAND_OFF, "NOT_HANDED", "Ljava/lang/Object;");
        mv.visitJumpInsn(Opcodes.IF_ACMPEQ, notHanded);
        if (result.getSort() == Type.VOID) {
            mv.visitInsn(Opcodes.POP);
            mv.visitInsn(Opcodes.RETURN);
        } else {
            unbox(mv, result);
            mv.visitInsn(result.getOpcode(Opcodes.IRETURN));
        }
        mv.visitLabel(notHanded);
        mv.visitInsn(Opcodes.POP);
        mv.visitLabel(plain);
    }

    private static void box(MethodVisitor mv, Type t) {
        if (t.getSort() == Type.OBJECT || t.getSort() == Type.ARRAY) {
            return;
        }
        Type boxed = boxType(t);
        mv.visitMethodInsn(Opcodes.INVOKESTATIC, boxed.getInternalName(), "valueOf",
                Type.getMethodDescriptor(boxed, t), false);
    }

    private static void unbox(MethodVisitor mv, Type t) {
        if (t.getSort() == Type.OBJECT || t.getSort() == Type.ARRAY) {
            mv.visitTypeInsn(Opcodes.CHECKCAST, t.getInternalName());
            return;
        }
        Type boxed = boxType(t);
        mv.visitTypeInsn(Opcodes.CHECKCAST, boxed.getInternalName());
        mv.visitMethodInsn(Opcodes.INVOKEVIRTUAL, boxed.getInternalName(), t.getClassName() + "Value",
                Type.getMethodDescriptor(t), false);
    }

    private static Type boxType(Type t) {
        return switch (t.getSort()) {
            case Type.BOOLEAN -> Type.getType(Boolean.class);
            case Type.CHAR -> Type.getType(Character.class);
            case Type.BYTE -> Type.getType(Byte.class);
            case Type.SHORT -> Type.getType(Short.class);
            case Type.INT -> Type.getType(Integer.class);
            case Type.FLOAT -> Type.getType(Float.class);
            case Type.LONG -> Type.getType(Long.class);
            default -> Type.getType(Double.class);
        };
    }
}

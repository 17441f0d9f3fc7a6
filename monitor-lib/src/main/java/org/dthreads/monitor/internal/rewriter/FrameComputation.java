package org.dthreads.monitor.internal.rewriter;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.FrameNode;
import org.objectweb.asm.tree.MethodNode;

/**
 * The fallback of {@link FrameHints} for one method: its frames computed by ASM ({@code COMPUTE_FRAMES}, common
 * super-classes from {@link ClassHierarchy}) in a class of its own, read back with its frames as ASM compressed them,
 * which the class's writer (computing max sizes only) writes as they are.
 */
final class FrameComputation {

    private FrameComputation() {}

    /** {@code method} (its frames ignored) with computed frames, as a new tree. */
    static MethodNode compute(MethodNode method, String owner, int classVersion, ClassHierarchy hierarchy) {
        for (AbstractInsnNode insn : method.instructions.toArray()) {
            if (insn instanceof FrameNode) {
                method.instructions.remove(insn);
            }
        }
        ClassWriter writer = new ClassWriter(ClassWriter.COMPUTE_FRAMES) {
            @Override
            protected String getCommonSuperClass(String type1, String type2) {
                return hierarchy.commonSuperClass(type1, type2);
            }

            @Override
            protected ClassLoader getClassLoader() {
                throw new IllegalStateException("the rewriter must not load classes");
            }
        };
        writer.visit(classVersion, Opcodes.ACC_SUPER, owner, null, "java/lang/Object", null);
        MethodVisitor out = writer.visitMethod(method.access, method.name, method.desc, method.signature,
                method.exceptions.toArray(new String[0]));
        method.accept(out);
        writer.visitEnd();
        ClassNode computed = new ClassNode();
        new ClassReader(writer.toByteArray()).accept(computed, 0);
        return computed.methods.get(0);
    }
}

package org.dthreads.benchmarks.paper.table2;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.LabelNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.VarInsnNode;

/**
 * The "universal extra argument" technique the paper argues against (Weyns et al.), applied to a
 * whole library: a measurement tool for the paper's Table 2, not product code.
 *
 * <p>Every non-native method {@code m(A..)} of the library's own classes (constructors, static and
 * instance, private, lambdas' bodies, overriding or not) gets a variant that takes one more
 * {@code long} (the thread class) as its last parameter and holds the original body; every call
 * site in the library whose target resolves to a library method calls the variant and passes the
 * argument along, so the extra argument flows through every library call. Variants of methods are
 * named {@code m$xarg} (so an existing {@code m(A.., long)} cannot collide; overriding is preserved
 * because every override gets the same name and descriptor); constructors keep {@code <init>} and
 * are left alone when {@code <init>(A.., long)} already exists.
 *
 * <p>The original signatures stay, as bridges that pass the constant 0: they are what callers
 * outside the library (the benchmark, JDK callbacks such as {@code toString}, reflection, lambda
 * method handles, {@code invokedynamic}) reach, which is the paper's "local variable" work-around
 * for clients that cannot be changed. Abstract methods keep their abstract original; their variant
 * is a concrete (in interfaces: default) method delegating to the original, so a class that
 * implements a library interface without being rewritten (a lambda, a JDK superclass providing the
 * method) stays correct. Static initializers and unextended constructors pass the constant.
 * Annotation interfaces are copied unchanged.
 *
 * <p>Limits (checked, not assumed away): a class outside the library that overrides a library
 * method would be bypassed by the library's calls to the variant; the benchmark's workloads have
 * none (the driver class is transformed with the library).
 */
public final class ExtraArgumentTransformer {

    /** Suffix of the extended variant of a method (not of a constructor). */
    public static final String SUFFIX = "$xarg";

    /** Counts of what the transformation did. */
    public static final class Stats {
        public int classes;
        public int methodsExtended;
        public int abstractDelegates;
        public int constructorsSkipped;
        public int callSitesExtended;
        public int callSitesWithConstant;
        public int callSitesUntouched;
        public int largestOriginalMethod;
        public String largestOriginalMethodName = "";
        public int largestVariant;
        public final List<String> crossedHugeMethodLimit = new ArrayList<>();

        @Override
        public String toString() {
            return classes + " classes, " + methodsExtended + " methods extended (" + abstractDelegates
                    + " abstract: delegating variant), " + constructorsSkipped + " constructors left alone; call sites: "
                    + callSitesExtended + " pass the argument, " + callSitesWithConstant + " pass a constant (<clinit>), "
                    + callSitesUntouched + " untouched (JDK targets); largest method " + largestOriginalMethod
                    + " bytes (" + largestOriginalMethodName + "), its variant " + largestVariant + " bytes"
                    + (crossedHugeMethodLimit.isEmpty() ? "" : "; crossed HotSpot's 8000-byte limit: " + crossedHugeMethodLimit);
        }
    }

    private record Info(String name, String superName, String[] interfaces, boolean isInterface, boolean annotation,
            Map<String, Integer> methods) {}

    private final Map<String, Info> library = new HashMap<>();
    private final Set<String> extended = new HashSet<>(); // owner.name+desc
    private final Stats stats = new Stats();

    private ExtraArgumentTransformer() {}

    /**
     * Transforms a library.
     *
     * @param classes internal class name -> class file bytes: the whole library (and its drivers)
     * @param stats receives counts; may be null
     * @return internal class name -> transformed bytes, same keys
     */
    public static Map<String, byte[]> transform(Map<String, byte[]> classes, Stats stats) {
        ExtraArgumentTransformer t = new ExtraArgumentTransformer();
        Map<String, ClassNode> nodes = new LinkedHashMap<>();
        for (Map.Entry<String, byte[]> e : classes.entrySet()) {
            ClassNode cn = new ClassNode();
            new ClassReader(e.getValue()).accept(cn, ClassReader.SKIP_FRAMES);
            nodes.put(cn.name, cn);
            Map<String, Integer> methods = new HashMap<>();
            for (MethodNode m : cn.methods) {
                methods.put(m.name + m.desc, m.access);
            }
            t.library.put(cn.name, new Info(cn.name, cn.superName, cn.interfaces.toArray(new String[0]),
                    (cn.access & Opcodes.ACC_INTERFACE) != 0, (cn.access & Opcodes.ACC_ANNOTATION) != 0, methods));
        }
        for (ClassNode cn : nodes.values()) {
            if ((cn.access & Opcodes.ACC_ANNOTATION) != 0) {
                continue;
            }
            for (MethodNode m : cn.methods) {
                if (t.extensible(cn, m)) {
                    t.extended.add(cn.name + "." + m.name + m.desc);
                } else if (m.name.equals("<init>")) {
                    t.stats.constructorsSkipped++;
                }
            }
        }
        Map<String, byte[]> out = new LinkedHashMap<>();
        for (ClassNode cn : nodes.values()) {
            out.put(cn.name, t.transformClass(cn));
        }
        if (stats != null) {
            copy(t.stats, stats);
        }
        return out;
    }

    private static void copy(Stats from, Stats to) {
        to.classes = from.classes;
        to.methodsExtended = from.methodsExtended;
        to.abstractDelegates = from.abstractDelegates;
        to.constructorsSkipped = from.constructorsSkipped;
        to.callSitesExtended = from.callSitesExtended;
        to.callSitesWithConstant = from.callSitesWithConstant;
        to.callSitesUntouched = from.callSitesUntouched;
        to.largestOriginalMethod = from.largestOriginalMethod;
        to.largestOriginalMethodName = from.largestOriginalMethodName;
        to.largestVariant = from.largestVariant;
        to.crossedHugeMethodLimit.addAll(from.crossedHugeMethodLimit);
    }

    static String extendedDescriptor(String desc) {
        int close = desc.indexOf(')');
        return desc.substring(0, close) + "J" + desc.substring(close);
    }

    private static String variantName(String name) {
        return name.equals("<init>") ? name : name + SUFFIX;
    }

    private static int firstLocal(MethodNode m) {
        return (Type.getArgumentsAndReturnSizes(m.desc) >> 2) - ((m.access & Opcodes.ACC_STATIC) != 0 ? 1 : 0);
    }

    private boolean extensible(ClassNode cn, MethodNode m) {
        if (m.name.equals("<clinit>") || (m.access & Opcodes.ACC_NATIVE) != 0) {
            return false;
        }
        if (m.name.equals("<init>")) {
            String desc = extendedDescriptor(m.desc);
            for (MethodNode other : cn.methods) {
                if (other.name.equals("<init>") && other.desc.equals(desc)) {
                    return false; // <init>(A.., long) exists already
                }
            }
        }
        // A wide local stored at the last parameter slot would overlap the new parameter.
        int p = firstLocal(m);
        for (AbstractInsnNode insn : m.instructions) {
            if (insn instanceof VarInsnNode v && v.var == p - 1) {
                int op = v.getOpcode();
                if (op == Opcodes.LLOAD || op == Opcodes.LSTORE || op == Opcodes.DLOAD || op == Opcodes.DSTORE) {
                    Type[] args = Type.getArgumentTypes(m.desc);
                    if (args.length == 0 || args[args.length - 1].getSize() == 1) {
                        return false;
                    }
                }
            }
        }
        return true;
    }

    /** The library method a call resolves to, if it has a variant; null otherwise (a JDK target). */
    private String resolve(String owner, String name, String desc) {
        if (name.equals("<init>")) {
            String key = owner + "." + name + desc;
            return extended.contains(key) ? key : null;
        }
        // Superclass chain first (JVMS 5.4.3.3), as far as it stays in the library ...
        Deque<String> interfaces = new ArrayDeque<>();
        for (String c = owner; c != null; ) {
            Info info = library.get(c);
            if (info == null) {
                break; // reached the JDK: its methods are not extended
            }
            if (info.methods.containsKey(name + desc)) {
                String key = c + "." + name + desc;
                return extended.contains(key) ? key : null;
            }
            interfaces.addAll(List.of(info.interfaces));
            c = info.superName;
        }
        // ... then the library's superinterfaces (a variant there delegates to the original when abstract).
        Set<String> seen = new HashSet<>();
        while (!interfaces.isEmpty()) {
            String i = interfaces.poll();
            Info info = library.get(i);
            if (info == null || !seen.add(i)) {
                continue;
            }
            if (info.methods.containsKey(name + desc)) {
                int access = info.methods.get(name + desc);
                if ((access & (Opcodes.ACC_PRIVATE | Opcodes.ACC_STATIC)) == 0) {
                    String key = i + "." + name + desc;
                    return extended.contains(key) ? key : null;
                }
            }
            interfaces.addAll(List.of(info.interfaces));
        }
        return null;
    }

    private byte[] transformClass(ClassNode cn) {
        stats.classes++;
        boolean isInterface = (cn.access & Opcodes.ACC_INTERFACE) != 0;
        if ((cn.version & 0xFFFF) < Opcodes.V1_8) {
            cn.version = Opcodes.V1_8; // default methods in interfaces; frames are recomputed anyway
        }
        List<MethodNode> methods = new ArrayList<>();
        for (MethodNode m : cn.methods) {
            int size = codeSize(m);
            if (size > stats.largestOriginalMethod) {
                stats.largestOriginalMethod = size;
                stats.largestOriginalMethodName = cn.name + "." + m.name;
            }
            if (!extended.contains(cn.name + "." + m.name + m.desc)) {
                if (m.instructions.size() > 0) {
                    rewriteCalls(m, -1); // <clinit>, native-free unextended constructors: pass a constant
                }
                methods.add(m);
                continue;
            }
            stats.methodsExtended++;
            MethodNode variant = variant(cn, m, isInterface);
            int variantSize = codeSize(variant);
            stats.largestVariant = Math.max(stats.largestVariant, variantSize);
            if (size <= 8000 && variantSize > 8000) {
                stats.crossedHugeMethodLimit.add(cn.name + "." + m.name + " " + size + " -> " + variantSize);
            }
            methods.add((m.access & Opcodes.ACC_ABSTRACT) != 0 ? m : bridge(cn, m, isInterface));
            methods.add(variant);
        }
        cn.methods = methods;
        ClassWriter writer = new ClassWriter(ClassWriter.COMPUTE_FRAMES) {
            @Override
            protected String getCommonSuperClass(String type1, String type2) {
                return commonSuperClass(type1, type2);
            }
        };
        cn.accept(writer);
        return writer.toByteArray();
    }

    /** Bytecode length of a method's code, as ASM writes it. */
    private static int codeSize(MethodNode m) {
        if (m.instructions.size() == 0) {
            return 0;
        }
        ClassWriter w = new ClassWriter(0);
        w.visit(Opcodes.V17, Opcodes.ACC_PUBLIC, "S", null, "java/lang/Object", null);
        MethodNode copy = new MethodNode(m.access, m.name, m.desc, null, null);
        m.accept(copy);
        LabelNode end = new LabelNode();
        copy.instructions.add(end);
        Label[] last = new Label[1];
        copy.accept(new MethodVisitor(Opcodes.ASM9, w.visitMethod(copy.access, copy.name, copy.desc, null, null)) {
            @Override
            public void visitLabel(Label label) {
                last[0] = label;
                super.visitLabel(label);
            }
        });
        return last[0].getOffset();
    }

    /** The variant: the original body with one more parameter, locals above it moved up by two. */
    private MethodNode variant(ClassNode cn, MethodNode m, boolean isInterface) {
        int access = m.access & ~(Opcodes.ACC_VARARGS | Opcodes.ACC_BRIDGE);
        String desc = extendedDescriptor(m.desc);
        int p = firstLocal(m);
        if ((m.access & Opcodes.ACC_ABSTRACT) != 0) {
            stats.abstractDelegates++;
            MethodNode v = new MethodNode(access & ~Opcodes.ACC_ABSTRACT, variantName(m.name), desc, null,
                    m.exceptions.toArray(new String[0]));
            loadArguments(v.instructions, m, 0);
            v.instructions.add(new MethodInsnNode(isInterface ? Opcodes.INVOKEINTERFACE : Opcodes.INVOKEVIRTUAL,
                    cn.name, m.name, m.desc, isInterface));
            v.instructions.add(new InsnNode(Type.getReturnType(m.desc).getOpcode(Opcodes.IRETURN)));
            return v;
        }
        MethodNode v = new MethodNode(access, variantName(m.name), desc, null, m.exceptions.toArray(new String[0]));
        m.accept(new MethodVisitor(Opcodes.ASM9, v) {
            @Override
            public void visitParameter(String name, int access) {}

            @Override
            public org.objectweb.asm.AnnotationVisitor visitParameterAnnotation(int parameter, String descriptor, boolean visible) {
                return null;
            }

            @Override
            public void visitAnnotableParameterCount(int parameterCount, boolean visible) {}

            @Override
            public org.objectweb.asm.AnnotationVisitor visitAnnotationDefault() {
                return null;
            }

            @Override
            public void visitLocalVariable(String name, String descriptor, String signature, Label start, Label end, int index) {}

            @Override
            public org.objectweb.asm.AnnotationVisitor visitLocalVariableAnnotation(int typeRef, org.objectweb.asm.TypePath typePath,
                    Label[] start, Label[] end, int[] index, String descriptor, boolean visible) {
                return null;
            }

            @Override
            public void visitVarInsn(int opcode, int var) {
                super.visitVarInsn(opcode, var >= p ? var + 2 : var);
            }

            @Override
            public void visitIincInsn(int var, int increment) {
                super.visitIincInsn(var >= p ? var + 2 : var, increment);
            }
        });
        rewriteCalls(v, p);
        return v;
    }

    /** The original signature: passes the constant 0 to the variant (callers outside the library land here). */
    private MethodNode bridge(ClassNode cn, MethodNode m, boolean isInterface) {
        MethodNode b = new MethodNode(m.access & ~Opcodes.ACC_SYNCHRONIZED, m.name, m.desc, m.signature,
                m.exceptions.toArray(new String[0]));
        b.visibleAnnotations = m.visibleAnnotations;
        b.invisibleAnnotations = m.invisibleAnnotations;
        b.visibleParameterAnnotations = m.visibleParameterAnnotations;
        b.invisibleParameterAnnotations = m.invisibleParameterAnnotations;
        b.visibleAnnotableParameterCount = m.visibleAnnotableParameterCount;
        b.invisibleAnnotableParameterCount = m.invisibleAnnotableParameterCount;
        b.parameters = m.parameters;
        b.attrs = m.attrs;
        loadArguments(b.instructions, m, 0);
        b.instructions.add(new InsnNode(Opcodes.LCONST_0));
        boolean isStatic = (m.access & Opcodes.ACC_STATIC) != 0;
        int opcode;
        if (isStatic) {
            opcode = Opcodes.INVOKESTATIC;
        } else if (m.name.equals("<init>") || (m.access & Opcodes.ACC_PRIVATE) != 0) {
            opcode = Opcodes.INVOKESPECIAL;
        } else {
            opcode = isInterface ? Opcodes.INVOKEINTERFACE : Opcodes.INVOKEVIRTUAL;
        }
        b.instructions.add(new MethodInsnNode(opcode, cn.name, variantName(m.name), extendedDescriptor(m.desc), isInterface));
        b.instructions.add(new InsnNode(Type.getReturnType(m.desc).getOpcode(Opcodes.IRETURN)));
        return b;
    }

    private static void loadArguments(InsnList insns, MethodNode m, int unused) {
        int slot = 0;
        if ((m.access & Opcodes.ACC_STATIC) == 0) {
            insns.add(new VarInsnNode(Opcodes.ALOAD, 0));
            slot = 1;
        }
        for (Type t : Type.getArgumentTypes(m.desc)) {
            insns.add(new VarInsnNode(t.getOpcode(Opcodes.ILOAD), slot));
            slot += t.getSize();
        }
    }

    /** Calls to library methods go to their variants, passing local {@code extraSlot} (or 0 when negative). */
    private void rewriteCalls(MethodNode m, int extraSlot) {
        for (AbstractInsnNode insn : m.instructions.toArray()) {
            if (!(insn instanceof MethodInsnNode call)) {
                continue;
            }
            if (call.owner.startsWith("[") || resolve(call.owner, call.name, call.desc) == null) {
                stats.callSitesUntouched++;
                continue;
            }
            if (extraSlot >= 0) {
                m.instructions.insertBefore(call, new VarInsnNode(Opcodes.LLOAD, extraSlot));
                stats.callSitesExtended++;
            } else {
                m.instructions.insertBefore(call, new InsnNode(Opcodes.LCONST_0));
                stats.callSitesWithConstant++;
            }
            call.name = variantName(call.name);
            call.desc = extendedDescriptor(call.desc);
        }
    }

    // ---- frames: common super class from the library's bytes, the JDK's classes otherwise ----

    private String superOf(String type) {
        Info info = library.get(type);
        if (info != null) {
            return info.isInterface ? null : info.superName;
        }
        Class<?> c = jdkClass(type);
        if (c == null || c.isInterface() || c.getSuperclass() == null) {
            return null;
        }
        return Type.getInternalName(c.getSuperclass());
    }

    private boolean isInterface(String type) {
        Info info = library.get(type);
        if (info != null) {
            return info.isInterface;
        }
        Class<?> c = jdkClass(type);
        return c != null && c.isInterface();
    }

    private static Class<?> jdkClass(String type) {
        try {
            return Class.forName(type.replace('/', '.'), false, ClassLoader.getPlatformClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
    }

    private String commonSuperClass(String type1, String type2) {
        if (isInterface(type1) || isInterface(type2)) {
            return "java/lang/Object";
        }
        List<String> chain = new ArrayList<>();
        for (String c = type1; c != null; c = superOf(c)) {
            chain.add(c);
        }
        for (String c = type2; c != null; c = superOf(c)) {
            if (chain.contains(c)) {
                return c;
            }
        }
        return "java/lang/Object";
    }
}

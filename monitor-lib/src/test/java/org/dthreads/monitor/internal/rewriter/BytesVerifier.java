package org.dthreads.monitor.internal.rewriter;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.analysis.Analyzer;
import org.objectweb.asm.tree.analysis.AnalyzerException;
import org.objectweb.asm.tree.analysis.BasicValue;
import org.objectweb.asm.tree.analysis.SimpleVerifier;
import org.objectweb.asm.util.CheckClassAdapter;

/**
 * What {@link CheckClassAdapter#verify(ClassReader, ClassLoader, boolean, PrintWriter)} does (the
 * structural checks of {@link CheckClassAdapter}, then a data-flow analysis of every method with a
 * {@link SimpleVerifier}), with super-types read from class bytes instead of loaded classes: for class
 * files the test JVM cannot load (version 69 on a Java 17 JVM) and for jars whose optional
 * dependencies are absent. Assignability follows the JVM's verifier: any reference may go where an
 * interface is expected.
 */
final class BytesVerifier {

    private record Info(String superName, boolean isInterface) {}

    private final Function<String, byte[]> classBytes;
    private final Map<String, Info> cache = new ConcurrentHashMap<>();

    /** @param classBytes internal name to class file bytes, or null if unknown */
    BytesVerifier(Function<String, byte[]> classBytes) {
        this.classBytes = classBytes;
    }

    /** Class-file bytes through a loader's resources (the JDK's through the platform loader). */
    static BytesVerifier of(ClassLoader loader) {
        return new BytesVerifier(name -> {
            try (var in = loader.getResourceAsStream(name + ".class")) {
                return in == null ? null : in.readAllBytes();
            } catch (java.io.IOException e) {
                return null;
            }
        });
    }

    /** @return the problems found, empty if none */
    String verify(byte[] bytes) {
        StringWriter problems = new StringWriter();
        PrintWriter out = new PrintWriter(problems);
        ClassNode node = new ClassNode();
        try {
            new ClassReader(bytes).accept(new CheckClassAdapter(Opcodes.ASM9, node, false) {}, ClassReader.SKIP_DEBUG);
        } catch (RuntimeException e) {
            out.println("structure: " + e);
            out.flush();
            return problems.toString();
        }
        Type self = Type.getObjectType(node.name);
        Type superType = node.superName == null ? null : Type.getObjectType(node.superName);
        List<Type> interfaces = new ArrayList<>();
        node.interfaces.forEach(i -> interfaces.add(Type.getObjectType(i)));
        boolean isInterface = (node.access & Opcodes.ACC_INTERFACE) != 0;
        for (MethodNode method : node.methods) {
            Analyzer<BasicValue> analyzer = new Analyzer<>(new Verifier(self, superType, interfaces, isInterface));
            try {
                analyzer.analyze(node.name, method);
            } catch (AnalyzerException | RuntimeException e) {
                out.println(node.name + "." + method.name + method.desc + ": " + e.getMessage());
            }
        }
        out.flush();
        return problems.toString();
    }

    private Info info(Type type) {
        String name = type.getInternalName();
        return cache.computeIfAbsent(name, n -> {
            byte[] bytes = classBytes.apply(n);
            if (bytes == null) {
                throw new IllegalStateException("no class file for " + n);
            }
            ClassReader reader = new ClassReader(bytes);
            return new Info(reader.getSuperName(), (reader.getAccess() & Opcodes.ACC_INTERFACE) != 0);
        });
    }

    private final class Verifier extends SimpleVerifier {
        private final Type self;
        private final Type selfSuper;
        private final boolean selfIsInterface;

        Verifier(Type self, Type selfSuper, List<Type> interfaces, boolean isInterface) {
            super(Opcodes.ASM9, self, selfSuper, interfaces, isInterface);
            this.self = self;
            this.selfSuper = selfSuper;
            this.selfIsInterface = isInterface;
        }

        @Override
        protected boolean isInterface(Type type) {
            if (type.equals(self)) {
                return selfIsInterface;
            }
            return type.getSort() == Type.OBJECT && info(type).isInterface();
        }

        @Override
        protected Type getSuperClass(Type type) {
            if (type.equals(self)) {
                return selfSuper;
            }
            if (type.getSort() == Type.ARRAY) {
                return Type.getObjectType("java/lang/Object");
            }
            String superName = info(type).superName();
            return superName == null ? null : Type.getObjectType(superName);
        }

        @Override
        protected boolean isAssignableFrom(Type target, Type value) {
            if (target.equals(value) || target.getDescriptor().equals("Ljava/lang/Object;")) {
                return true;
            }
            if (target.getSort() == Type.ARRAY) {
                if (value.getSort() != Type.ARRAY) {
                    return false;
                }
                Type t = Type.getType(target.getDescriptor().substring(1));
                Type v = Type.getType(value.getDescriptor().substring(1));
                boolean refs = (t.getSort() == Type.OBJECT || t.getSort() == Type.ARRAY)
                        && (v.getSort() == Type.OBJECT || v.getSort() == Type.ARRAY);
                return refs ? isAssignableFrom(t, v) : t.equals(v);
            }
            if (value.getSort() == Type.ARRAY) {
                String n = target.getInternalName();
                return n.equals("java/lang/Cloneable") || n.equals("java/io/Serializable");
            }
            if (isInterface(target)) {
                return true; // the JVM's verifier treats interface types as Object
            }
            if (value.equals(self) && selfIsInterface) {
                return false;
            }
            for (Type s = value; s != null; s = getSuperClass(s)) {
                if (s.equals(target)) {
                    return true;
                }
            }
            return false;
        }

        @Override
        protected Class<?> getClass(Type type) {
            throw new IllegalStateException("BytesVerifier does not load " + type);
        }
    }
}

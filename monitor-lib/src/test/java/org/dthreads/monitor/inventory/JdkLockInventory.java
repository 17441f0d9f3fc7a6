package org.dthreads.monitor.inventory;

import java.io.IOException;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.FieldNode;
import org.objectweb.asm.tree.LdcInsnNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.ModuleExportNode;
import org.objectweb.asm.tree.TypeInsnNode;
import org.objectweb.asm.tree.VarInsnNode;
import org.objectweb.asm.tree.analysis.Analyzer;
import org.objectweb.asm.tree.analysis.AnalyzerException;
import org.objectweb.asm.tree.analysis.Frame;
import org.objectweb.asm.tree.analysis.SourceInterpreter;
import org.objectweb.asm.tree.analysis.SourceValue;

/**
 * Inventory of the JDK's public ways to hand application code an object that JDK code also locks with
 * the JVM's monitor (issue 21). Such an object must keep the JVM's monitor under dthreads, or
 * {@code synchronized} in rewritten code stops excluding the JDK's own {@code synchronized}.
 *
 * <p>Method: every {@code monitorenter} in the scanned modules of a JDK (read through its {@code jrt:/}
 * file system) is traced back, within its method (ASM {@link SourceInterpreter}, through local
 * variables, {@code dup} and {@code checkcast}), to where the locked value comes from: {@code this},
 * a parameter, a field, a method's return value, a {@code new}, a class constant. A source is
 * <em>reported</em> when application code can reach the same object through public API and the object
 * may be one whose monitor dthreads emulates ({@link #isPlain(Type) plain} static type):
 * <ul>
 *   <li>{@code param}: a parameter of a public or protected method or constructor of an exported class;</li>
 *   <li>{@code return}: the return value of a public or protected method of an exported class;</li>
 *   <li>{@code field}: a public or protected field of an exported class, or any field that a public or
 *       protected constructor or method stores one of its parameters into ({@code Writer(Object lock)}).</li>
 * </ul>
 * {@code this} (synchronized methods, {@code synchronized (this)}) is not reported: instances of
 * application subclasses of JDK classes are native by the superclass rule; it is collected separately
 * ({@link Result#lockingThis()}) so the test can check that no class on the "never locks this" list does.
 * Approximate by design: one method at a time (a lock passed through private helpers, or kept in a map,
 * is seen at the helper's parameter, which is not public); the test's list of known findings is the
 * reviewed record.
 *
 * <p>Run: {@code JdkLockInventoryTest} in the build (this JDK), or {@code main} with a JDK's home to
 * print the findings of that JDK (its {@code jrt-fs.jar} is loaded).
 */
public final class JdkLockInventory {

    /** Scanned modules; absent ones are skipped. */
    public static final List<String> MODULES = List.of("java.base", "java.rmi", "java.logging", "java.desktop");

    /** One reportable source of a locked value, and where JDK code locks it. */
    public record Finding(String key, Set<String> lockedIn) {}

    /** Findings by key ({@code kind owner.member descriptor}), and classes whose code locks {@code this}. */
    public record Result(Map<String, Finding> findings, Set<String> lockingThis, int classes, int monitorenters) {}

    private final Map<String, ClassNode> classes = new HashMap<>();
    private final Set<String> exportedPackages = new HashSet<>();

    private JdkLockInventory() {}

    /** Scans the running JDK. */
    public static Result scanRunningJdk() throws IOException {
        return scan(FileSystems.getFileSystem(URI.create("jrt:/")));
    }

    /** Scans the JDK at {@code javaHome} (any JDK 9+). */
    public static Result scanJdk(Path javaHome) throws IOException {
        try (FileSystem fs = FileSystems.newFileSystem(URI.create("jrt:/"), Map.of("java.home", javaHome.toString()))) {
            return scan(fs);
        }
    }

    private static Result scan(FileSystem jrt) throws IOException {
        JdkLockInventory inv = new JdkLockInventory();
        for (String module : MODULES) {
            Path root = jrt.getPath("/modules", module);
            if (Files.isDirectory(root)) {
                inv.load(root);
            }
        }
        return inv.analyse();
    }

    /** Scans the given class files as if they were a module exporting {@code exportedPackages} (internal names). */
    static Result scanClassFiles(Collection<byte[]> classFiles, Set<String> exportedPackages) {
        JdkLockInventory inv = new JdkLockInventory();
        inv.exportedPackages.addAll(exportedPackages);
        for (byte[] bytes : classFiles) {
            inv.add(bytes);
        }
        return inv.analyse();
    }

    private void add(byte[] classFile) {
        ClassNode node = new ClassNode();
        new ClassReader(classFile).accept(node, ClassReader.SKIP_FRAMES | ClassReader.SKIP_DEBUG);
        classes.put(node.name, node);
    }

    private void load(Path root) throws IOException {
        // Read with ASM: java.lang.module.ModuleDescriptor refuses class files newer than the running JDK.
        ClassNode moduleInfo = new ClassNode();
        new ClassReader(Files.readAllBytes(root.resolve("module-info.class"))).accept(moduleInfo, 0);
        for (ModuleExportNode e : moduleInfo.module.exports) {
            if (e.modules == null || e.modules.isEmpty()) {
                exportedPackages.add(e.packaze);
            }
        }
        try (Stream<Path> files = Files.walk(root)) {
            for (Path p : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".class"))::iterator) {
                if (p.getFileName().toString().equals("module-info.class")) {
                    continue;
                }
                add(Files.readAllBytes(p));
            }
        }
    }

    private Result analyse() {
        Map<String, Finding> findings = new TreeMap<>();
        Set<String> lockingThis = new TreeSet<>();
        Map<String, Set<String>> fieldsStoredFromPublicParams = fieldsStoredFromPublicParameters();
        int enters = 0;
        for (ClassNode c : classes.values()) {
            for (MethodNode m : c.methods) {
                if ((m.access & Opcodes.ACC_SYNCHRONIZED) != 0 && (m.access & Opcodes.ACC_STATIC) == 0) {
                    lockingThis.add(c.name);
                }
                if (!hasMonitorEnter(m)) {
                    continue;
                }
                Frame<SourceValue>[] frames = frames(c, m);
                if (frames == null) {
                    continue;
                }
                for (int i = 0; i < m.instructions.size(); i++) {
                    AbstractInsnNode insn = m.instructions.get(i);
                    if (insn.getOpcode() != Opcodes.MONITORENTER || frames[i] == null) {
                        continue;
                    }
                    enters++;
                    Frame<SourceValue> f = frames[i];
                    String site = c.name + "." + m.name + m.desc;
                    for (String source : sources(m, frames, f.getStack(f.getStackSize() - 1), new HashSet<>())) {
                        if (source.equals("this")) {
                            lockingThis.add(c.name);
                        } else if (reportable(source, fieldsStoredFromPublicParams)) {
                            String key = key(source, c, m);
                            findings.computeIfAbsent(key, k -> new Finding(k, new TreeSet<>())).lockedIn().add(site);
                        }
                    }
                }
            }
        }
        return new Result(findings, lockingThis, classes.size(), enters);
    }

    /**
     * The reviewed identity of a finding: fields and methods under their declaring class (so
     * {@code BufferedReader.lock} is {@code Reader.lock}); a parameter with its method; the value of a
     * generic container ({@code Map.get}, {@code Iterator.next}) with the class that locks it, since the
     * container, not the method, decides who can reach it.
     */
    private String key(String source, ClassNode site, MethodNode siteMethod) {
        String[] parts = source.split(" ");
        switch (parts[0]) {
            case "param" -> {
                return "param " + parts[1] + " " + parts[2] + " of " + site.name + "." + siteMethod.name + siteMethod.desc;
            }
            case "field" -> {
                int dot = parts[1].lastIndexOf('.');
                String declaring = declaringClassOfField(parts[1].substring(0, dot), parts[1].substring(dot + 1));
                return "field " + declaring + parts[1].substring(dot) + " " + parts[2];
            }
            case "return" -> {
                int paren = parts[1].indexOf('(');
                int dot = parts[1].lastIndexOf('.', paren);
                ClassNode owner = classes.get(parts[1].substring(0, dot));
                String name = parts[1].substring(dot + 1, paren);
                String desc = parts[1].substring(paren);
                if (owner == null) {
                    return source;
                }
                ClassNode declaring = declaringClassOfMethod(owner, name, desc);
                MethodNode callee = method(declaring, name, desc);
                if (name.equals("getClass") || callee != null && callee.signature != null && callee.signature != null && callee.signature.substring(callee.signature.indexOf(')') + 1).startsWith("T")) {
                    return "container " + declaring.name + "." + name + desc + " in " + site.name;
                }
                return "return " + declaring.name + "." + name + desc;
            }
            default -> {
                return source;
            }
        }
    }

    private String declaringClassOfField(String owner, String name) {
        for (ClassNode c = classes.get(owner); c != null; c = c.superName == null ? null : classes.get(c.superName)) {
            for (FieldNode f : c.fields) {
                if (f.name.equals(name)) {
                    return c.name;
                }
            }
        }
        return owner;
    }

    /** The class or interface declaring the method first: superclasses first, then interfaces. */
    private ClassNode declaringClassOfMethod(ClassNode start, String name, String desc) {
        ClassNode found = start;
        for (ClassNode c = start; c != null; c = c.superName == null ? null : classes.get(c.superName)) {
            for (MethodNode m : c.methods) {
                if (m.name.equals(name) && m.desc.equals(desc)) {
                    found = c;
                }
            }
        }
        return found;
    }

    private static boolean hasMonitorEnter(MethodNode m) {
        for (AbstractInsnNode insn = m.instructions.getFirst(); insn != null; insn = insn.getNext()) {
            if (insn.getOpcode() == Opcodes.MONITORENTER) {
                return true;
            }
        }
        return false;
    }

    private static Frame<SourceValue>[] frames(ClassNode c, MethodNode m) {
        try {
            return new Analyzer<>(new SourceInterpreter()).analyze(c.name, m);
        } catch (AnalyzerException e) {
            return null;
        }
    }

    /**
     * Where a value comes from: {@code this}, {@code param N Ldesc;}, {@code field owner.name desc},
     * {@code return owner.name desc}, {@code new type}, {@code class type}, {@code other OPCODE}.
     */
    private static Set<String> sources(MethodNode m, Frame<SourceValue>[] frames, SourceValue value, Set<AbstractInsnNode> seen) {
        Set<String> out = new TreeSet<>();
        for (AbstractInsnNode insn : value.insns) {
            if (!seen.add(insn)) {
                continue;
            }
            int index = m.instructions.indexOf(insn);
            Frame<SourceValue> before = frames[index];
            switch (insn.getOpcode()) {
                case Opcodes.ALOAD -> {
                    int var = ((VarInsnNode) insn).var;
                    SourceValue local = before.getLocal(var);
                    if (local.insns.isEmpty()) {
                        out.add(parameter(m, var));
                    } else {
                        out.addAll(sources(m, frames, local, seen));
                    }
                }
                case Opcodes.ASTORE, Opcodes.CHECKCAST, Opcodes.DUP, Opcodes.DUP_X1, Opcodes.DUP_X2 ->
                        out.addAll(sources(m, frames, before.getStack(before.getStackSize() - 1), seen));
                case Opcodes.GETFIELD, Opcodes.GETSTATIC -> {
                    FieldInsnNode f = (FieldInsnNode) insn;
                    out.add("field " + f.owner + "." + f.name + " " + f.desc);
                }
                case Opcodes.INVOKEVIRTUAL, Opcodes.INVOKESPECIAL, Opcodes.INVOKESTATIC, Opcodes.INVOKEINTERFACE -> {
                    MethodInsnNode call = (MethodInsnNode) insn;
                    out.add("return " + call.owner + "." + call.name + call.desc);
                }
                case Opcodes.NEW -> out.add("new " + ((TypeInsnNode) insn).desc);
                case Opcodes.LDC -> out.add("class " + ((LdcInsnNode) insn).cst);
                default -> out.add("other " + insn.getOpcode());
            }
        }
        return out;
    }

    private static String parameter(MethodNode m, int var) {
        boolean isStatic = (m.access & Opcodes.ACC_STATIC) != 0;
        if (!isStatic && var == 0) {
            return "this";
        }
        int slot = isStatic ? 0 : 1;
        Type[] args = Type.getArgumentTypes(m.desc);
        for (int i = 0; i < args.length; i++) {
            if (slot == var) {
                return "param " + i + " " + args[i].getDescriptor() + " " + accessible(m.access);
            }
            slot += args[i].getSize();
        }
        return "other local " + var;
    }

    private static String accessible(int access) {
        return (access & (Opcodes.ACC_PUBLIC | Opcodes.ACC_PROTECTED)) != 0 ? "public" : "internal";
    }

    /** Fields that a public or protected constructor or method of an exported class stores a parameter into. */
    private Map<String, Set<String>> fieldsStoredFromPublicParameters() {
        Map<String, Set<String>> out = new HashMap<>();
        for (ClassNode c : classes.values()) {
            if (!isApi(c)) {
                continue;
            }
            for (MethodNode m : c.methods) {
                if ((m.access & (Opcodes.ACC_PUBLIC | Opcodes.ACC_PROTECTED)) == 0 || !storesAField(m)) {
                    continue;
                }
                Frame<SourceValue>[] frames = frames(c, m);
                if (frames == null) {
                    continue;
                }
                for (int i = 0; i < m.instructions.size(); i++) {
                    AbstractInsnNode insn = m.instructions.get(i);
                    if ((insn.getOpcode() != Opcodes.PUTFIELD && insn.getOpcode() != Opcodes.PUTSTATIC) || frames[i] == null) {
                        continue;
                    }
                    FieldInsnNode f = (FieldInsnNode) insn;
                    if (!isPlain(Type.getType(f.desc))) {
                        continue;
                    }
                    Frame<SourceValue> fr = frames[i];
                    for (String s : sources(m, frames, fr.getStack(fr.getStackSize() - 1), new HashSet<>())) {
                        if (s.startsWith("param ")) {
                            out.computeIfAbsent("field " + f.owner + "." + f.name + " " + f.desc, k -> new TreeSet<>())
                                    .add(c.name + "." + m.name + m.desc);
                        }
                    }
                }
            }
        }
        return out;
    }

    /** Whether {@code m} stores into a field of a plain type (only those methods are analysed). */
    private static boolean storesAField(MethodNode m) {
        for (AbstractInsnNode insn = m.instructions.getFirst(); insn != null; insn = insn.getNext()) {
            if ((insn.getOpcode() == Opcodes.PUTFIELD || insn.getOpcode() == Opcodes.PUTSTATIC)
                    && isPlain(Type.getType(((FieldInsnNode) insn).desc))) {
                return true;
            }
        }
        return false;
    }

    private boolean reportable(String source, Map<String, Set<String>> fieldsStoredFromPublicParams) {
        String[] parts = source.split(" ");
        switch (parts[0]) {
            case "param" -> {
                return parts[3].equals("public") && isPlain(Type.getType(parts[2]));
            }
            case "field" -> {
                if (!isPlain(Type.getType(parts[2]))) {
                    return false;
                }
                if (fieldsStoredFromPublicParams.containsKey(source)) {
                    return true;
                }
                int dot = parts[1].lastIndexOf('.');
                FieldNode f = field(parts[1].substring(0, dot), parts[1].substring(dot + 1));
                ClassNode owner = classes.get(parts[1].substring(0, dot));
                return f != null && owner != null && isApi(owner)
                        && (f.access & (Opcodes.ACC_PUBLIC | Opcodes.ACC_PROTECTED)) != 0;
            }
            case "return" -> {
                int paren = parts[1].indexOf('(');
                String ownerAndName = parts[1].substring(0, paren);
                int dot = ownerAndName.lastIndexOf('.');
                ClassNode owner = classes.get(ownerAndName.substring(0, dot));
                MethodNode callee = owner == null ? null : method(owner, ownerAndName.substring(dot + 1), parts[1].substring(paren));
                return callee != null && isApi(owner) && (callee.access & (Opcodes.ACC_PUBLIC | Opcodes.ACC_PROTECTED)) != 0
                        && isPlain(Type.getReturnType(callee.desc));
            }
            default -> {
                return false;
            }
        }
    }

    private boolean isApi(ClassNode c) {
        int slash = c.name.lastIndexOf('/');
        return (c.access & Opcodes.ACC_PUBLIC) != 0 && slash > 0 && exportedPackages.contains(c.name.substring(0, slash))
                && !c.name.contains("$") || (c.access & Opcodes.ACC_PUBLIC) != 0 && isNestedApi(c);
    }

    private boolean isNestedApi(ClassNode c) {
        int dollar = c.name.lastIndexOf('$');
        if (dollar < 0) {
            return false;
        }
        ClassNode outer = classes.get(c.name.substring(0, dollar));
        return outer != null && isApi(outer);
    }

    private FieldNode field(String owner, String name) {
        for (ClassNode c = classes.get(owner); c != null; c = c.superName == null ? null : classes.get(c.superName)) {
            for (FieldNode f : c.fields) {
                if (f.name.equals(name)) {
                    return f;
                }
            }
        }
        return null;
    }

    private MethodNode method(ClassNode start, String name, String desc) {
        for (ClassNode c = start; c != null; c = c.superName == null ? null : classes.get(c.superName)) {
            for (MethodNode m : c.methods) {
                if (m.name.equals(name) && m.desc.equals(desc)) {
                    return m;
                }
            }
        }
        return null;
    }

    /**
     * Static types under which application code may hand over, or receive, an object whose monitor
     * dthreads emulates: {@code Object}, {@code String}, boxes, {@code Number}, arrays, {@code Class}
     * (of a rewritten class), and interfaces (which rewritten application classes implement).
     */
    static boolean isPlain(Type t) {
        if (t.getSort() == Type.ARRAY) {
            return true;
        }
        if (t.getSort() != Type.OBJECT) {
            return false;
        }
        return switch (t.getInternalName()) {
            case "java/lang/Object", "java/lang/String", "java/lang/Class", "java/lang/Number", "java/lang/Integer",
                    "java/lang/Long", "java/lang/Short", "java/lang/Byte", "java/lang/Character", "java/lang/Boolean",
                    "java/lang/Float", "java/lang/Double" -> true;
            default -> false;
        };
    }

    /** Prints the findings of the JDK at {@code args[0]} (default: the running one). */
    public static void main(String[] args) throws IOException {
        Result r = args.length == 0 ? scanRunningJdk() : scanJdk(Path.of(args[0]));
        System.out.println("classes=" + r.classes() + " monitorenters=" + r.monitorenters() + " findings=" + r.findings().size());
        for (Finding f : r.findings().values()) {
            System.out.println(f.key());
            for (String site : f.lockedIn()) {
                System.out.println("    locked in " + site);
            }
        }
        List<String> lockingThis = new ArrayList<>(r.lockingThis());
        System.out.println("classes locking this: " + lockingThis.size());
    }
}

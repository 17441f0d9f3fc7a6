package org.dthreads.maven;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.maven.artifact.Artifact;
import org.apache.maven.artifact.DependencyResolutionRequiredException;
import org.apache.maven.plugin.AbstractMojo;
import org.apache.maven.plugin.MojoExecutionException;
import org.apache.maven.plugin.MojoFailureException;
import org.apache.maven.plugins.annotations.LifecyclePhase;
import org.apache.maven.plugins.annotations.Mojo;
import org.apache.maven.plugins.annotations.Parameter;
import org.apache.maven.plugins.annotations.ResolutionScope;
import org.apache.maven.project.MavenProject;
import org.dthreads.agent.internal.AgentScope;
import org.dthreads.agent.internal.Instrumenter;
import org.dthreads.maven.internal.Files2;
import org.dthreads.maven.internal.MissingTypes;

/**
 * Rewrites the project's classes at build time as the dthreads agent does at load time (the offline
 * instrumenter of {@code dthreads-agent}): monitor operations of every class in scope, JRMP twins of
 * remote interfaces, hook calls in legacy {@code *_Stub} classes. Run the result with
 * {@code org.dthreads:dthreads-agent} on the class path and no {@code -javaagent}.
 *
 * <p>By default {@code target/classes} is rewritten in place, so the jar, the tests and
 * {@code exec:java} all see the rewritten classes. Rewritten classes carry a marker: running the
 * goal again, or running them with the agent as well, leaves them as they are.
 */
@Mojo(name = "instrument", defaultPhase = LifecyclePhase.PROCESS_CLASSES, threadSafe = true,
        requiresDependencyResolution = ResolutionScope.TEST)
public class InstrumentMojo extends AbstractMojo {

    /** The project whose classes and dependencies are rewritten. */
    @Parameter(defaultValue = "${project}", readonly = true, required = true)
    private MavenProject project;

    /** The compiled classes to rewrite. */
    @Parameter(defaultValue = "${project.build.outputDirectory}", required = true)
    private File classesDirectory;

    /**
     * Where the rewritten classes go; unset: {@code classesDirectory} is rewritten in place. A directory
     * outside {@code target/} must be empty or absent.
     */
    @Parameter
    private File outputDirectory;

    /** Package prefixes rewritten even if excluded by default (as the agent's {@code -Ddthreads.include=}). */
    @Parameter
    private List<String> includes = new ArrayList<>();

    /** Package prefixes never rewritten (as the agent's {@code -Ddthreads.exclude=}); wins over everything. */
    @Parameter
    private List<String> excludes = new ArrayList<>();

    /**
     * Also rewrite the project's compile- and runtime-scope dependency jars, each into
     * {@code dependenciesDirectory} under its own file name. A jar whose rewritten copy is newer than
     * it is skipped; dthreads' own artifacts are never rewritten.
     */
    @Parameter(defaultValue = "false")
    private boolean instrumentDependencies;

    /** Where {@code instrumentDependencies} writes the rewritten jars. */
    @Parameter(defaultValue = "${project.build.directory}/dthreads-dependencies")
    private File dependenciesDirectory;

    /**
     * Fail the build when a class in scope cannot be rewritten because a type it uses (a super-type,
     * or a type its frames merge) is on no class path of the project; the error names each class, the
     * type and the dependency that has it. One exception: classes of a dependency jar whose missing
     * types no dependency of the project provides are that library's optional parts (their own
     * dependency is absent) and only warned about. When false, such classes are always copied
     * unchanged, keep the JVM's monitors, and are listed as warnings.
     */
    @Parameter(defaultValue = "true")
    private boolean failOnMissingTypes;

    /** Skip the goal. */
    @Parameter(property = "dthreads.skip", defaultValue = "false")
    private boolean skip;

    @Override
    public void execute() throws MojoExecutionException, MojoFailureException {
        if (skip) {
            getLog().info("dthreads: instrument skipped");
            return;
        }
        AgentScope scope = AgentScope.from("include=" + String.join(",", includes) + ";exclude=" + String.join(",", excludes));
        Path classes = classesDirectory.toPath().toAbsolutePath().normalize();
        Path work = Path.of(project.getBuild().getDirectory(), "dthreads-instrument");
        List<Path> classPath = classPath(classes);
        if (Files.isDirectory(classes)) {
            Path target = outputDirectory == null ? classes : outputDirectory.toPath().toAbsolutePath().normalize();
            instrument(scope, classes, target, work.resolve("classes"), classPath, "the project's classes", false);
        } else {
            getLog().info("dthreads: no classes to instrument in " + classes);
        }
        if (instrumentDependencies) {
            for (Artifact dependency : runtimeJars()) {
                Path jar = dependency.getFile().toPath();
                Path out = dependenciesDirectory.toPath().resolve(jar.getFileName());
                if (Files2.isNewer(out, jar)) {
                    getLog().info("dthreads: " + jar.getFileName() + " is up to date in " + dependenciesDirectory);
                    continue;
                }
                instrument(scope, jar, out, work.resolve(jar.getFileName()), classPath, dependency.getId(), true);
            }
        }
    }

    /**
     * Instruments {@code in} into {@code staging} (fresh), checks the result, then moves it to
     * {@code out} (which may be {@code in}): on failure {@code out} is left as it was.
     */
    private void instrument(AgentScope scope, Path in, Path out, Path staging, List<Path> classPath, String what,
            boolean dependency)
            throws MojoExecutionException, MojoFailureException {
        Instrumenter.Report report;
        try {
            Files2.deleteRecursively(staging);
            Files.createDirectories(staging.getParent());
            report = new Instrumenter(scope, classPath, logStream()).run(in, staging);
        } catch (Instrumenter.InstrumentException | IOException e) {
            throw new MojoExecutionException("dthreads: cannot instrument " + what + " (" + in + "): " + e.getMessage(), e);
        }
        getLog().info("dthreads: instrumented " + what + ": " + report.monitorRewritten() + " of "
                + report.classesSeen() + " classes rewritten, " + report.twinned() + " remote interfaces twinned, "
                + report.stubsPatched() + " stubs patched" + (report.skipped().isEmpty() ? "" : ", skipped " + report.skipped()));
        if (MissingTypes.anyIn(report)) {
            List<MissingTypes.Missing> missing;
            try {
                missing = new MissingTypes(in, classPath, scope, project.getArtifacts()).find();
            } catch (java.io.UncheckedIOException e) {
                throw new MojoExecutionException("dthreads: " + e.getMessage() + ": " + e.getCause(), e);
            }
            // In a dependency jar, a class using a type no dependency provides is an optional part of
            // that library whose own dependency is absent: a warning. Anything else is bad input.
            boolean optionalParts = dependency && missing.stream().allMatch(m -> m.provider() == null);
            String problem = MissingTypes.describe(what, missing);
            if (failOnMissingTypes && !optionalParts) {
                try {
                    Files2.deleteRecursively(staging);
                } catch (IOException ignored) {
                    // the build fails anyway; the next run starts from a fresh staging directory
                }
                throw new MojoFailureException(problem + "\nOr set <failOnMissingTypes>false</failOnMissingTypes> to copy"
                        + " such classes unchanged (they keep the JVM's monitors).");
            }
            getLog().warn(problem + "\nThey are copied unchanged and keep the JVM's monitors.");
        }
        try {
            if (!out.equals(in) && !out.startsWith(Path.of(project.getBuild().getDirectory()).toAbsolutePath())
                    && Files2.isNonEmptyDirectory(out)) {
                throw new MojoExecutionException("dthreads: outputDirectory " + out + " is outside target/ and not"
                        + " empty; name an empty directory or one under target/");
            }
            Files2.replace(staging, out);
        } catch (IOException e) {
            throw new MojoExecutionException("dthreads: cannot move the instrumented " + what + " to " + out + ": " + e, e);
        }
    }

    /** Where super-types are found: the compile class path (compile, provided, system) and the runtime one. */
    private List<Path> classPath(Path classes) throws MojoExecutionException {
        Set<String> elements = new LinkedHashSet<>();
        try {
            elements.addAll(project.getCompileClasspathElements());
            elements.addAll(project.getRuntimeClasspathElements());
        } catch (DependencyResolutionRequiredException e) {
            throw new MojoExecutionException("dthreads: the project's dependencies are not resolved: " + e.getMessage(), e);
        }
        List<Path> paths = new ArrayList<>();
        for (String e : elements) {
            Path p = Path.of(e).toAbsolutePath().normalize();
            if (!p.equals(classes) && Files.exists(p)) {
                paths.add(p);
            }
        }
        return paths;
    }

    /** Compile- and runtime-scope jars, without dthreads' own (the runtime is never rewritten). */
    private List<Artifact> runtimeJars() {
        List<Artifact> jars = new ArrayList<>();
        for (Artifact a : project.getArtifacts()) {
            boolean runtime = Artifact.SCOPE_COMPILE.equals(a.getScope()) || Artifact.SCOPE_RUNTIME.equals(a.getScope());
            if (runtime && a.getArtifactHandler().isAddedToClasspath() && a.getFile() != null
                    && a.getFile().isFile() && !"org.dthreads".equals(a.getGroupId())) {
                jars.add(a);
            }
        }
        return jars;
    }

    /** The instrumenter's progress and warning lines, into the build log. */
    private PrintStream logStream() {
        return new PrintStream(OutputStream.nullOutputStream()) {
            @Override
            public void println(String line) {
                if (line.contains("WARNING")) {
                    getLog().warn(line);
                } else {
                    getLog().debug(line);
                }
            }
        };
    }
}

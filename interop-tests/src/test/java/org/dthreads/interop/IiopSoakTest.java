package org.dthreads.interop;

import example.soak.IiopSoakSite;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.dthreads.junit.Site;
import org.dthreads.junit.SiteCluster;
import org.dthreads.junit.SiteSpec;
import org.dthreads.junit.SitesExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link SoakTest} over IIOP on JacORB (profile {@code soak}, not the default build), once per callback mode: the same
 * chains (a DSI servant per site, calls by DII, the remote monitor at the end of each chain over IIOP), drivers and
 * checks, for {@code -Ddthreads.soak.iiop.seconds} (default 30). JacORB serves a request on a POA worker thread that
 * stays taken while the request's hop waits in the chain; the chains queued at A's monitor hold one each, so
 * the pool may grow past its default 20 ({@code jacorb.poa.thread_pool_max}), or the chain holding A's monitor
 * would find no worker for its callback there.
 *
 * <pre>./mvnw -B -Psoak -pl interop-tests -am verify -Dtest=IiopSoakTest -Dsurefire.failIfNoSpecifiedTests=false</pre>
 */
@Tag("soak")
@ExtendWith(SitesExtension.class)
class IiopSoakTest {

    private static final Map<String, String> RESULTS = new LinkedHashMap<>();

    @ParameterizedTest(name = "-Ddthreads.callbacks={0}")
    @MethodSource("org.dthreads.interop.SoakTest#modes")
    void sixtyFourThreadsAcrossThreeJacorbJvms(String mode, SiteCluster cluster) {
        long seconds = Long.getLong("dthreads.soak.iiop.seconds", 30);
        String[] flags = {"-Xmx256m", "-Djacorb.poa.thread_pool_max=128"};
        List<Site> sites = cluster.start(Stream.of("A", "B", "C")
                .map(name -> SiteSpec.app(name, IiopSoakSite.class).javaAgent(JrmpZigzagTest.AGENT).jvmFlags(flags)
                        .systemProperty("dthreads.callbacks", mode))
                .toArray(SiteSpec[]::new));
        // no helper threads: JacORB's callers send and wait for their replies themselves (JacorbReplyWait)
        RESULTS.put(mode, SoakTest.soak(cluster, sites, mode, seconds, false));
    }

    @AfterAll
    static void printBothModes() {
        RESULTS.forEach((mode, line) -> System.out.printf("soak over IIOP, side by side: %-8s %s%n", mode, line));
    }
}

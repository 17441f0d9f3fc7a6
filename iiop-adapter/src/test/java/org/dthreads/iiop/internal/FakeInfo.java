package org.dthreads.iiop.internal;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.omg.CORBA.BAD_PARAM;
import org.omg.CORBA.NO_IMPLEMENT;
import org.omg.IOP.ServiceContext;
import org.omg.PortableInterceptor.ClientRequestInfo;
import org.omg.PortableInterceptor.ServerRequestInfo;
import org.omg.PortableServer.ThreadPolicy;
import org.omg.PortableServer.ThreadPolicyValue;

/** Request-info fakes (dynamic proxies) for interceptor unit tests. */
final class FakeInfo {

    final Map<String, Object> values = new HashMap<>();
    final List<ServiceContext> added = new ArrayList<>();
    ServiceContext requestContext;
    ServiceContext helloContext;
    boolean throwEverywhere;

    private static final java.util.concurrent.atomic.AtomicInteger REQUEST_IDS = new java.util.concurrent.atomic.AtomicInteger();

    static FakeInfo request(String operation, boolean responseExpected) {
        FakeInfo f = new FakeInfo();
        f.values.put("request_id", REQUEST_IDS.incrementAndGet());
        f.values.put("operation", operation);
        f.values.put("response_expected", responseExpected);
        return f;
    }

    FakeInfo with(String method, Object value) {
        values.put(method, value);
        return this;
    }

    FakeInfo context(byte[] body) {
        requestContext = new ServiceContext(IdentityContext.ID, body);
        return this;
    }

    FakeInfo hello(byte[] body) {
        helloContext = new ServiceContext(SiteHelloContext.ID, body);
        return this;
    }

    FakeInfo singleThreadModel() {
        ThreadPolicy p = (ThreadPolicy) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {ThreadPolicy.class},
                (proxy, m, args) -> switch (m.getName()) {
                    case "value" -> ThreadPolicyValue.SINGLE_THREAD_MODEL;
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    case "toString" -> "STM";
                    default -> throw new NO_IMPLEMENT(m.getName());
                });
        values.put("get_server_policy", p);
        return this;
    }

    private ClientRequestInfo client;
    private ServerRequestInfo server;

    /** One proxy per fake, as an ORB passes one info object through a request's interception points. */
    ClientRequestInfo client() {
        if (client == null) {
            client = (ClientRequestInfo) proxy(ClientRequestInfo.class);
        }
        return client;
    }

    ServerRequestInfo server() {
        if (server == null) {
            server = (ServerRequestInfo) proxy(ServerRequestInfo.class);
        }
        return server;
    }

    long sentClass() {
        return IdentityContext.decode(added.get(added.size() - 1).context_data);
    }

    private Object proxy(Class<?> type) {
        return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {type}, (proxy, m, args) -> {
            switch (m.getName()) {
                case "hashCode": return System.identityHashCode(proxy);
                case "equals": return proxy == args[0];
                case "toString": return "FakeInfo" + values;
                default: break;
            }
            if (throwEverywhere) {
                throw new IllegalStateException("fake failure in " + m.getName());
            }
            switch (m.getName()) {
                case "add_request_service_context":
                    added.add((ServiceContext) args[0]);
                    return null;
                case "get_request_service_context":
                    if (helloContext != null && (int) args[0] == helloContext.context_id) {
                        return helloContext;
                    }
                    if (requestContext == null || (int) args[0] != requestContext.context_id) {
                        throw new BAD_PARAM("no context");
                    }
                    return requestContext;
                default:
                    if (values.containsKey(m.getName())) {
                        return values.get(m.getName());
                    }
                    throw new NO_IMPLEMENT(m.getName());
            }
        });
    }
}

package org.dthreads.iiop.internal;

import org.omg.CORBA.Any;
import org.omg.CORBA.BAD_POLICY;
import org.omg.CORBA.LocalObject;
import org.omg.CORBA.Policy;
import org.omg.CORBA.PolicyError;
import org.omg.PortableInterceptor.PolicyFactory;

/**
 * Registered for {@code THREAD_POLICY_ID} only where the ORB has no factory for it (JacORB), because
 * JacORB's {@code ServerRequestInfo.get_server_policy} and {@code IORInfo.get_effective_policy}
 * refuse every policy type that has no registered factory, even POA policies it knows. It creates
 * nothing: {@code create_policy} fails exactly as the ORB does without a factory
 * ({@code PolicyError(BAD_POLICY)}); POAs create thread policies with
 * {@code POA.create_thread_policy}, which does not go through factories.
 *
 * <p>Stateless; called by the ORB on any thread.
 */
public final class ThreadPolicyProbe extends LocalObject implements PolicyFactory {

    private static final long serialVersionUID = 1L;

    @Override
    public Policy create_policy(int type, Any value) throws PolicyError {
        throw new PolicyError(BAD_POLICY.value);
    }
}

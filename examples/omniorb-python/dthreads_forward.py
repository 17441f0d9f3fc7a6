"""Forward dthreads' thread identity through an omniORBpy (Python) CORBA peer.

A Java site running dthreads sends its thread's class in IIOP service context 0x44540001
(docs/wire-format.md). A Python peer in the middle of a call chain (Java -> Python -> Java) keeps
the chain's identity by copying that context, unchanged, from the request it serves to the two-way
requests it makes while serving it. Without this, the Java callee sees a fresh class and a callback
into a monitor held by the original caller blocks (the zigzag deadlock).

Usage, before CORBA.ORB_init:

    import dthreads_forward
    dthreads_forward.install()
    orb = CORBA.ORB_init(sys.argv, CORBA.ORB_ID)

`oneway_operations` names operations declared oneway in your IDL: they must not carry the context
(the Java side then starts a fresh class, since the caller keeps running).

Tested by iiop-adapter's OmniOrbPeerTest (Java -> this peer -> Java, and the control without
forwarding), with the jeteve-omniorb 4.3.3 wheel from PyPI.
"""
import threading

from omniORB import interceptors

DTHREADS_CONTEXT_ID = 0x44540001

_current = threading.local()


def _server_receive(operation, contexts):
    _current.context = None
    for context_id, data in contexts:
        if context_id == DTHREADS_CONTEXT_ID:
            _current.context = data  # the 16 bytes as received; no need to decode them


def _server_send(operation, contexts, repository_id=None):
    _current.context = None


def install(oneway_operations=(), forward=True):
    """Registers the interceptors; call before CORBA.ORB_init. forward=False registers only the
    server side (what a peer without the recipe does: the chain loses its identity)."""
    oneways = frozenset(oneway_operations)

    def client_send(operation, contexts):
        data = getattr(_current, "context", None)
        if data is not None and operation not in oneways:
            contexts.append((DTHREADS_CONTEXT_ID, data))

    interceptors.addServerReceiveRequest(_server_receive)
    interceptors.addServerSendReply(_server_send)
    interceptors.addServerSendException(_server_send)
    if forward:
        interceptors.addClientSendRequest(client_send)

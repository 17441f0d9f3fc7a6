"""A non-Java peer for OmniOrbPeerTest: the forwarding recipe of docs/wire-format.md on omniORBpy.

Serves the test IDL's Hop; chainSame() forwards to the next hop. Prints "IOR <ior>" and serves
until killed. With "--no-forward" it does not forward the context (the control case).
"""
import sys, threading
import omniORB
from omniORB import CORBA, PortableServer, interceptors
import org.dthreads.iiop.testidl as T, org__POA.dthreads.iiop.testidl as TP

# --- the recipe from docs/wire-format.md ---
DT = 0x44540001
ONEWAY_OPS = {"fire"}
_current = threading.local()

def server_receive(op, contexts):
    _current.ctx = None
    for ctx_id, data in contexts:
        if ctx_id == DT:
            _current.ctx = data

def server_send(op, contexts, repo_id=None):
    _current.ctx = None

def client_send(op, contexts):
    data = getattr(_current, "ctx", None)
    if data is not None and op not in ONEWAY_OPS:
        contexts.append((DT, data))

interceptors.addServerReceiveRequest(server_receive)
interceptors.addServerSendReply(server_send)
interceptors.addServerSendException(server_send)
if "--no-forward" not in sys.argv:
    interceptors.addClientSendRequest(client_send)
orb = CORBA.ORB_init([sys.argv[0], "-ORBendPoint", "giop:tcp:127.0.0.1:"])
# --- end of recipe ---

class Hop(TP.Hop):
    def seen(self): return 0
    def chain(self, nxt, me, depth): return [0] + (list(nxt.chain(me, nxt, depth - 1)) if depth > 0 else [])
    def chainSame(self, nxt, me, depth):
        if depth <= 0: return 0
        return nxt.chainSame(me, nxt, depth - 1)
    def originate(self, nxt, cls):
        # a context made by omniORB's own CDR encoder: byte-order octet 01 on x86, padding left as is
        _current.ctx = omniORB.cdrMarshal(CORBA.TC_longlong, cls)
        try:
            return nxt.seen()
        finally:
            _current.ctx = None
    def fire(self): pass
    def lastOneway(self): return 0
    def threadState(self): return []

poa = orb.resolve_initial_references("RootPOA")
poa._get_the_POAManager().activate()
ref = Hop()._this()
print("IOR " + orb.object_to_string(ref), flush=True)
orb.run()

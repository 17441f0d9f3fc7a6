@file:JvmName("KotlinMonitors")
@file:Suppress("PLATFORM_CLASS_MAPPED_TO_KOTLIN")

package shapes

// Kotlin's monitor code, compiled by kotlinc at test time (RewriterOtherCompilersTest): the inline
// synchronized { }, @Synchronized, (lock as Object).wait()/notify()/notifyAll(), a function reference to
// notify and a SAM-converted one to notifyAll, Thread.holdsLock. run() must read the same rewritten as plain.

private val lock = Any()
private var count = 0

class Counter {
    var value = 0
        private set

    @Synchronized
    fun increment() {
        val seen = value
        Thread.yield()
        value = seen + 1
    }

    @Synchronized
    fun holds(): Boolean = Thread.holdsLock(this)
}

private fun hammer(threads: Int, rounds: Int, body: () -> Unit) {
    val workers = (1..threads).map { Thread { repeat(rounds) { body() } } }
    workers.forEach { it.start() }
    workers.forEach { it.join() }
}

fun run(): String {
    val out = ArrayList<String>()
    hammer(4, 200) {
        synchronized(lock) {
            val seen = count
            Thread.yield()
            count = seen + 1
        }
    }
    out.add("count=$count")
    val counter = Counter()
    hammer(4, 200) { counter.increment() }
    out.add("counter=${counter.value} holds=${counter.holds()} outside=${Thread.holdsLock(counter)}")

    val monitor = Any()
    synchronized(monitor) {
        (monitor as Object).notifyAll()
        (monitor as Object).notify()
        (monitor as Object).wait(1)
        val viaReference: () -> Unit = (monitor as Object)::notify
        viaReference()
        val samConverted = Runnable((monitor as Object)::notifyAll) // may be an invokedynamic on Object.notifyAll
        samConverted.run()
        out.add("inside holds=${Thread.holdsLock(monitor)}")
    }
    out.add(
        try {
            (monitor as Object).notify()
            "outside notify: no exception"
        } catch (e: IllegalMonitorStateException) {
            "outside notify: IllegalMonitorStateException"
        }
    )

    var woken = false
    val waiter = Thread {
        synchronized(monitor) {
            while (!woken) {
                (monitor as Object).wait()
            }
        }
    }
    waiter.start()
    synchronized(monitor) {
        woken = true
        (monitor as Object).notifyAll()
    }
    waiter.join()
    out.add("waiter done")
    return out.toString()
}

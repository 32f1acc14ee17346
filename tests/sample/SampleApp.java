// The sample heap dump behind the page's "Try a sample" button (web/public/sample.hprof.gz),
// made by scripts/make-sample.sh. A tiny program with one deliberate leak, so the analysis
// has something to find:
//   - SessionCache.SESSIONS, a static map that is only ever added to, holds 256 byte
//     arrays of 16 KiB (4 MiB, most of the heap): the leak suspect;
//   - a few strings (a list of greetings, one duplicated many times);
//   - a thread, "sample-worker", parked while a local variable holds a small object graph
//     (a Java-local GC root of a live thread).
// It then dumps its own heap (live objects only) with HotSpotDiagnosticMXBean.dumpHeap.

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

public class SampleApp {
    static final class SessionCache {
        // The leak: entries are put, never removed.
        static final Map<String, byte[]> SESSIONS = new HashMap<>();

        static void remember(String id, int size) {
            byte[] state = new byte[size];
            Arrays.fill(state, (byte) id.hashCode());
            SESSIONS.put(id, state);
        }
    }

    static final class Order {
        final String customer;
        final List<String> items = new ArrayList<>();

        Order(String customer) {
            this.customer = customer;
        }
    }

    static final List<String> GREETINGS = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        if (args.length != 1 || !args[0].endsWith(".hprof")) {
            System.err.println("usage: java SampleApp OUT.hprof");
            System.exit(2);
        }
        for (int i = 0; i < 256; i++) {
            SessionCache.remember("session-" + i, 16 * 1024);
        }
        for (String word : new String[] {"hello", "bonjour", "hola", "hallo", "ciao", "namaste"}) {
            GREETINGS.add(word + ", heapscope");
        }
        for (int i = 0; i < 200; i++) {
            GREETINGS.add(new String("duplicate me")); // 200 equal strings, 200 objects
        }

        CountDownLatch parked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread worker = new Thread(() -> {
            Order order = new Order("ACME Corp");
            for (int i = 0; i < 10; i++) {
                order.items.add("item-" + i);
            }
            parked.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            System.out.println(order.customer + ": " + order.items.size() + " items");
        }, "sample-worker");
        worker.start();
        parked.await();

        HotSpotDiagnosticMXBean bean = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        bean.dumpHeap(args[0], true);

        release.countDown();
        worker.join();
        System.out.println("sessions: " + SessionCache.SESSIONS.size() + ", greetings: " + GREETINGS.size());
    }
}

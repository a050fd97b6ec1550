package dev.offload.internal.memory;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;
import dev.offload.internal.FairQueue;
import dev.offload.internal.SessionDeadline;
import dev.offload.internal.ThreadStripes;

/**
 * The device memory that sessions and application-owned buffers may hold at once, and the
 * queue of those waiting for it: a counting semaphore of bytes with priorities and
 * deadlines.
 * <p>
 * Invariant: the bytes reserved never exceed {@code budget}, and the bytes in use never
 * exceed those reserved; every byte acquired is released exactly once (a session releases
 * its reservation when it ends, an application-owned buffer when it is closed). Waiters
 * are served high priority first, then across tenants by weighted fair queuing and within
 * a tenant in arrival order, first fit within a class (a small request is not held behind
 * a large one that does not fit yet); a waiter of a lower class is served only when no
 * higher one waits. A wait ends at the session's deadline or the borrow timeout of its
 * priority's lane, whichever comes first, with a {@link MemoryFailures#budgetExceeded
 * budget failure}; a request larger than the whole budget fails at once. A large request
 * (more than an eighth of the budget) is admitted only while it leaves an eighth to the
 * others, or when nothing is in use, so that a few large sessions cannot make every small
 * one wait for them (the small ones' lane, in bytes). With waiters, arrivals queue so
 * that a waiter is not overtaken for ever.
 * <p>
 * Under many threads the cost is moving cache lines between cores. Until two threads
 * first race on the reservation (a failed compare-and-set), every request takes one
 * compare-and-set on it while nobody waits, and the reservation is the bytes in use. From
 * then on the budget is striped, as Linux's per-CPU counters are: each stripe of threads
 * ({@link ThreadStripes}), on a cache line of its own, holds credit leased from the
 * reservation, and a small request (at most a lease: the budget, or the device's memory
 * if less, over {@code 8 × stripes}) takes its stripe's credit, leasing a lease's worth
 * more from the reservation when the stripe has too little, and gives its bytes back to
 * the stripe, which keeps at most a lease and gives the rest back to the reservation. The
 * reservation is then the bytes in use plus the stripes' idle credit, at most an eighth
 * of the budget (or of the device's memory: a budget may be unlimited), and stays within
 * the budget: the bound is exact. Idle credit never makes anyone wait or refuses a
 * request: a request that does not fit reclaims every stripe's credit and tries again,
 * and a waiter reclaims it when it starts to wait; while anyone waits, requests and
 * releases skip the stripes, and a thread that put credit on its stripe while a waiter
 * came gives it back (the credit and the count of waiters are both written, then the
 * other read, so one of the two sees the other). Large requests bypass the stripes. The
 * bytes in use are the reservation less the stripes' credit, summed when read: exact when
 * nothing runs, an estimate while requests race.
 * <p>
 * The peak ({@link #peakBytes()}) is the most bytes in use at once, never the stripes'
 * idle credit, which can be an eighth of the budget while a few megabytes are in use; the
 * reservation's own high-water ({@link #reservedPeakBytes()}) is kept apart. Summing the
 * stripes on every request would cost what the stripes save, so the peak is kept as the
 * budget is: the headroom below it (the peak less the bytes in use) is held as allowance
 * on the stripes' own cache lines, beside their credit. A request takes its bytes from
 * its stripe's allowance; a release gives them back to it, and a stripe keeps at most a
 * lease of allowance, the rest going to a shared pool. Only a request that finds too
 * little in its stripe and the pool gathers every stripe's allowance, and only one that
 * still lacks some raises the peak, by what it lacks: the peak is exact when requests do
 * not race, and at most the allowance moving between stripes meanwhile above it when they
 * do.
 * <p>
 * The reservation (written by admissions and releases that leave the stripes), its peak,
 * the number of waiters (read by every one, written seldom), and the peak in use with its
 * pool of allowance lie on cache lines of their own. A failed compare-and-set goes on
 * from the value it found rather than reading the line again.
 */
final class MemoryBudget {

	/** Longs between two counters. */
	private static final int STRIDE = ThreadStripes.SPACING_BYTES / Long.BYTES;

	/** Slots of {@link #counters}, {@link #STRIDE} apart and from the array's ends. */
	private static final int RESERVED = STRIDE;

	private static final int PEAK = 2 * STRIDE;

	private static final int WAITING = 3 * STRIDE;

	/** The most bytes in use at once, and beside it the pool of allowance below it. */
	private static final int USED_PEAK = 4 * STRIDE;

	private static final int ALLOWANCE_POOL = USED_PEAK + 1;

	private final int deviceId;

	private final long budgetBytes;

	/** The share of the budget a large request leaves to the others: an eighth. */
	private final long smallReserveBytes;

	/**
	 * The bytes reserved, their peak, the number of waiters, and the peak in use with the
	 * pool of allowance, each on its own line.
	 */
	private final AtomicLongArray counters = new AtomicLongArray(USED_PEAK + STRIDE);

	/** A power of two: the stripes of {@link #credit}. */
	private final int stripes;

	/**
	 * The credit a stripe leases from the reservation at once, and the most it keeps: an
	 * eighth of the budget (or of the device's memory, if less) over all stripes; 0 for a
	 * budget too small to stripe.
	 */
	private final long leaseBytes;

	/**
	 * The idle credit of each stripe, {@link #STRIDE} apart and from the array's ends;
	 * beside each, on the same line, the stripe's allowance below the peak in use.
	 */
	private final AtomicLongArray credit;

	/**
	 * Whether small requests use the stripes: set by the first failed compare-and-set.
	 */
	private volatile boolean striped;

	private final LongAdder waitTimeouts = new LongAdder();

	/** Makes the exceptions of requests refused. */
	private final MemoryFailures failures;

	private final ReentrantLock lock = new ReentrantLock();

	/** The waiters and their admission; under the lock. */
	private final MemoryWaiters waiters = new MemoryWaiters();

	/**
	 * Creates a budget.
	 * @param deviceBytes the device's memory: with less memory than budget (or no budget,
	 * {@code Long.MAX_VALUE}) the leases are shares of the memory
	 * @param failures makes the exceptions of requests refused
	 */
	MemoryBudget(int deviceId, long budgetBytes, long deviceBytes, MemoryFailures failures) {
		this(deviceId, budgetBytes, deviceBytes, ThreadStripes.stripes(Runtime.getRuntime().availableProcessors()),
				false, failures);
	}

	/**
	 * Creates a budget.
	 * @param deviceBytes the device's memory
	 * @param stripes a power of two
	 * @param striped whether small requests use the stripes from the start (for tests)
	 * @param failures makes the exceptions of requests refused
	 */
	MemoryBudget(int deviceId, long budgetBytes, long deviceBytes, int stripes, boolean striped,
			MemoryFailures failures) {
		this.deviceId = deviceId;
		this.failures = failures;
		this.budgetBytes = budgetBytes;
		this.smallReserveBytes = budgetBytes / 8;
		this.stripes = stripes;
		this.leaseBytes = Math.max(0, Math.min(budgetBytes, deviceBytes)) / (8L * stripes);
		this.credit = new AtomicLongArray((stripes + 1) * STRIDE);
		this.striped = striped && this.leaseBytes > 0;
	}

	long budgetBytes() {
		return this.budgetBytes;
	}

	/**
	 * Returns the bytes in use: the reservation less the stripes' idle credit; exact when
	 * no request runs, else off by the credit that moves while the stripes are summed
	 * (never below zero).
	 */
	long usedBytes() {
		long idle = idleCreditBytes();
		return Math.max(0, this.counters.get(RESERVED) - idle);
	}

	/**
	 * Returns the bytes reserved: those in use and the stripes' idle credit.
	 */
	long reservedBytes() {
		return this.counters.get(RESERVED);
	}

	/**
	 * Returns the credit the stripes hold and nobody uses.
	 */
	long idleCreditBytes() {
		if (!this.striped) {
			return 0;
		}
		long idle = 0;
		for (int i = 0; i < this.stripes; i++) {
			idle += this.credit.get(slot(i));
		}
		return idle;
	}

	/**
	 * Returns the most bytes in use at once: exact when requests do not race, never the
	 * stripes' idle credit. Racing requests can count allowance moving between stripes
	 * above the true peak; since no more than the budget is ever in use, the peak is
	 * never reported above it.
	 */
	long peakBytes() {
		return Math.min(this.counters.get(USED_PEAK), this.budgetBytes);
	}

	/**
	 * Returns the most bytes reserved at once: those in use and the stripes' idle credit
	 * (at most an eighth of the budget, or of the device's memory, above them).
	 */
	long reservedPeakBytes() {
		return this.counters.get(PEAK);
	}

	int waiting() {
		return (int) this.counters.get(WAITING);
	}

	long waitTimeouts() {
		return this.waitTimeouts.sum();
	}

	/**
	 * Acquires {@code bytes}, waiting at most {@code timeoutNanos} and until the
	 * deadline.
	 * @throws RuntimeException the {@linkplain MemoryFailures failure} of a request
	 * refused: if the request is larger than the budget, or its wait ended
	 */
	void acquire(long bytes, boolean highPriority, long timeoutNanos, @Nullable SessionDeadline deadline) {
		acquire(bytes, highPriority, timeoutNanos, deadline, null);
	}

	/**
	 * Acquires {@code bytes} for a tenant: its waiters are admitted fairly against other
	 * tenants' ({@link FairQueue}), and it holds at most its limit.
	 * @throws RuntimeException the {@linkplain MemoryFailures failure} of a request
	 * refused: if the request is larger than the budget or the tenant's limit, or its
	 * wait ended (naming the tenant when its limit held it)
	 */
	void acquire(long bytes, boolean highPriority, long timeoutNanos, @Nullable SessionDeadline deadline,
			@Nullable MemoryTenant tenant) {
		if (bytes <= 0) {
			return;
		}
		if (bytes > this.budgetBytes) {
			refused(tenant);
			throw this.failures.budgetExceeded(this.deviceId, this.budgetBytes, usedBytes(), bytes, Duration.ZERO);
		}
		if (tenant != null && tenant.maxBytes() > 0 && bytes > tenant.maxBytes()) {
			refused(tenant);
			throw tenantExceeded(tenant, bytes, Duration.ZERO);
		}
		if (!tryAcquireNow(bytes, tenant)) {
			acquireSlow(bytes, highPriority, timeoutNanos, deadline, tenant);
			countInUse(bytes);
		}
	}

	/**
	 * Acquires {@code bytes} for a tenant if they fit now and nobody waits, without
	 * waiting or counting a refusal.
	 * @return whether the bytes were acquired
	 */
	boolean tryAcquireNow(long bytes, @Nullable MemoryTenant tenant) {
		if (bytes <= 0) {
			return true;
		}
		if (waiting() == 0 && (tenant == null || tenant.tryHold(bytes))) {
			if (this.striped && bytes <= this.leaseBytes) {
				if (acquireStriped(bytes)) {
					countInUse(bytes);
					return true;
				}
			}
			else if (tryAcquire(bytes) || (this.striped && reclaimForRequest() && tryAcquire(bytes))) {
				countInUse(bytes);
				return true;
			}
			if (tenant != null) {
				tenant.unhold(bytes);
			}
		}
		return false;
	}

	private static void refused(@Nullable MemoryTenant tenant) {
		if (tenant != null) {
			tenant.counters().refused();
		}
	}

	private RuntimeException tenantExceeded(MemoryTenant tenant, long bytes, Duration waited) {
		return this.failures.tenantLimitExceeded(this.deviceId, tenant.name(), tenant.maxBytes(), tenant.heldBytes(),
				bytes, waited);
	}

	/**
	 * Counts {@code bytes} more in use against the peak: takes them from the stripe's
	 * allowance below the peak, else from the pool and the other stripes, and raises the
	 * peak by what none of them has.
	 */
	private void countInUse(long bytes) {
		int slot = slot(ThreadStripes.current(this.stripes)) + 1;
		long held = this.credit.get(slot);
		while (held >= bytes) {
			long found = this.credit.compareAndExchange(slot, held, held - bytes);
			if (found == held) {
				return;
			}
			held = found;
		}
		long missing = bytes - this.credit.getAndSet(slot, 0);
		// Take a lease's worth more than missing when the pool has it, so that the
		// stripe's next requests find allowance of their own.
		long pooled = this.counters.get(ALLOWANCE_POOL);
		while (pooled > 0) {
			long taken = Math.min(pooled, missing + this.leaseBytes);
			long found = this.counters.compareAndExchange(ALLOWANCE_POOL, pooled, pooled - taken);
			if (found == pooled) {
				missing -= taken;
				break;
			}
			pooled = found;
		}
		for (int i = 0; i < this.stripes && missing > 0; i++) {
			int other = slot(i) + 1;
			if (other != slot && this.credit.get(other) > 0) {
				missing -= this.credit.getAndSet(other, 0);
			}
		}
		if (missing < 0) {
			this.credit.addAndGet(slot, -missing);
		}
		else if (missing > 0) {
			this.counters.addAndGet(USED_PEAK, missing);
		}
	}

	/**
	 * Counts {@code bytes} fewer in use: they become the stripe's allowance below the
	 * peak, of which it keeps at most a lease and gives the rest to the pool.
	 */
	private void countReleased(long bytes) {
		int slot = slot(ThreadStripes.current(this.stripes)) + 1;
		long held = this.credit.addAndGet(slot, bytes);
		while (held > this.leaseBytes) {
			long found = this.credit.compareAndExchange(slot, held, this.leaseBytes);
			if (found == held) {
				this.counters.addAndGet(ALLOWANCE_POOL, held - this.leaseBytes);
				return;
			}
			held = found;
		}
	}

	/**
	 * Acquires {@code bytes} from the reservation if they fit now. A large request (more
	 * than an eighth of the budget) fits only if it leaves an eighth of the budget to the
	 * others, or if nothing is reserved: large sessions cannot take the whole budget and
	 * make every small one wait for them.
	 */
	/**
	 * Says whether {@link #tryAcquire} could take {@code bytes} now as far as the
	 * reservation goes (the small ones' reserve aside): {@code false} means it would
	 * refuse them and anything larger.
	 */
	boolean mayAdmit(long bytes) {
		long current = this.counters.get(RESERVED);
		return current == 0 || current + bytes <= this.budgetBytes;
	}

	boolean tryAcquire(long bytes) {
		long limit = (bytes > this.smallReserveBytes) ? this.budgetBytes - this.smallReserveBytes : this.budgetBytes;
		return reserve(bytes, limit);
	}

	/**
	 * Adds {@code bytes} to the reservation if it stays within {@code limit}, or if it
	 * was empty and stays within the budget.
	 */
	private boolean reserve(long bytes, long limit) {
		long current = this.counters.get(RESERVED);
		while (true) {
			long next = current + bytes;
			if (next > limit && (current > 0 || next > this.budgetBytes)) {
				return false;
			}
			long found = this.counters.compareAndExchange(RESERVED, current, next);
			if (found == current) {
				if (next > this.counters.get(PEAK)) {
					this.counters.accumulateAndGet(PEAK, next, Math::max);
				}
				return true;
			}
			if (!this.striped && this.leaseBytes > 0) {
				this.striped = true;
			}
			current = found;
		}
	}

	/**
	 * Acquires a small request from the calling thread's stripe, leasing more credit for
	 * it from the reservation when the stripe has too little; reclaims every stripe's
	 * credit before it gives up.
	 */
	private boolean acquireStriped(long bytes) {
		int slot = slot(ThreadStripes.current(this.stripes));
		long held = this.credit.get(slot);
		while (held >= bytes) {
			long found = this.credit.compareAndExchange(slot, held, held - bytes);
			if (found == held) {
				return true;
			}
			held = found;
		}
		// Lease the request and enough to leave the stripe about a lease of credit.
		long extra = this.leaseBytes - held;
		if (reserve(bytes + extra, this.budgetBytes)) {
			addCredit(slot, extra);
			return true;
		}
		return tryAcquire(bytes) || (reclaimForRequest() && tryAcquire(bytes));
	}

	/**
	 * Gives every stripe's idle credit back to the reservation for a request that does
	 * not fit, and admits the waiters it lets in: a waiter that came while this thread
	 * took the credit found none to take itself, and nothing else would wake it for what
	 * this request leaves over. The reservation is written before the count of waiters is
	 * read, and a waiter writes its count before it reads the reservation: one of the two
	 * sees the other.
	 * @return whether any credit came back
	 */
	private boolean reclaimForRequest() {
		if (reclaimAll() == 0) {
			return false;
		}
		if (waiting() > 0) {
			admitWaitersLocked();
		}
		return true;
	}

	/** Gives back {@code bytes} a tenant acquired. */
	void release(long bytes, @Nullable MemoryTenant tenant) {
		if (tenant != null && bytes > 0) {
			tenant.unhold(bytes);
		}
		release(bytes);
	}

	void release(long bytes) {
		if (bytes <= 0) {
			return;
		}
		countReleased(bytes);
		if (this.striped && bytes <= this.leaseBytes && waiting() == 0) {
			addCredit(slot(ThreadStripes.current(this.stripes)), bytes);
			return;
		}
		this.counters.addAndGet(RESERVED, -bytes);
		if (waiting() > 0) {
			admitWaitersLocked();
		}
	}

	/**
	 * Puts {@code bytes} on a stripe's credit, gives what is above a lease back to the
	 * reservation, and all of it if someone started to wait meanwhile.
	 */
	private void addCredit(int slot, long bytes) {
		long held = this.credit.addAndGet(slot, bytes);
		while (held > this.leaseBytes) {
			long found = this.credit.compareAndExchange(slot, held, this.leaseBytes);
			if (found == held) {
				this.counters.addAndGet(RESERVED, -(held - this.leaseBytes));
				break;
			}
			held = found;
		}
		// The credit was written before the count of waiters is read: a waiter that came
		// after this reads the credit when it reclaims it, or this thread sees it here.
		if (waiting() > 0) {
			long idle = this.credit.getAndSet(slot, 0);
			if (idle > 0) {
				this.counters.addAndGet(RESERVED, -idle);
			}
			admitWaitersLocked();
		}
	}

	/**
	 * Gives every stripe's idle credit back to the reservation.
	 * @return the bytes given back
	 */
	private long reclaimAll() {
		long reclaimed = 0;
		for (int i = 0; i < this.stripes; i++) {
			int slot = slot(i);
			if (this.credit.get(slot) > 0) {
				reclaimed += this.credit.getAndSet(slot, 0);
			}
		}
		if (reclaimed > 0) {
			this.counters.addAndGet(RESERVED, -reclaimed);
		}
		return reclaimed;
	}

	private void admitWaitersLocked() {
		this.lock.lock();
		try {
			admitWaiters();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** The slot of a stripe in {@link #credit}. */
	private static int slot(int stripe) {
		return (stripe + 1) * STRIDE;
	}

	private void acquireSlow(long bytes, boolean highPriority, long timeoutNanos, @Nullable SessionDeadline deadline,
			@Nullable MemoryTenant tenant) {
		long start = System.nanoTime();
		this.lock.lock();
		try {
			MemoryWaiters.Waiter waiter = new MemoryWaiters.Waiter(bytes, this.lock.newCondition(), tenant);
			FairQueue.Entry<MemoryWaiters.Waiter> entry = this.waiters.add(waiter, highPriority);
			this.counters.incrementAndGet(WAITING);
			try {
				// The count of waiters was written before the credit is read: a stripe
				// that gets credit after this gives it back itself.
				reclaimAll();
				admitWaiters();
				while (!waiter.admitted) {
					long remaining = timeoutNanos - (System.nanoTime() - start);
					if (deadline != null) {
						remaining = Math.min(remaining, deadline.remainingNanos());
					}
					if (remaining <= 0) {
						this.waitTimeouts.increment();
						refused(tenant);
						if (tenant != null && tenant.maxBytes() > 0 && tenant.heldBytes() + bytes > tenant.maxBytes()) {
							throw tenantExceeded(tenant, bytes, Duration.ofNanos(System.nanoTime() - start));
						}
						throw this.failures.budgetExceeded(this.deviceId, this.budgetBytes, usedBytes(), bytes,
								Duration.ofNanos(System.nanoTime() - start));
					}
					waiter.signal.awaitNanos(remaining);
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				if (waiter.admitted) {
					this.counters.addAndGet(RESERVED, -bytes);
					if (tenant != null) {
						tenant.unhold(bytes);
					}
				}
				throw this.failures.interrupted("Interrupted while waiting for " + bytes + " bytes of device "
						+ this.deviceId + "'s memory budget", ex);
			}
			finally {
				if (!waiter.admitted) {
					this.waiters.remove(entry, highPriority);
				}
				this.counters.decrementAndGet(WAITING);
				// A waiter that gave up may have been the one that held others back.
				admitWaiters();
			}
		}
		finally {
			this.lock.unlock();
			if (tenant != null) {
				tenant.counters().waited(System.nanoTime() - start);
			}
		}
	}

	/** Admits the waiters that fit; called under the lock. */
	private void admitWaiters() {
		this.waiters.admit(this);
	}

}

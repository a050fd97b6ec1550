package dev.offload.benchmarks.baseline;

import java.time.Duration;

import org.apache.commons.pool2.BasePooledObjectFactory;
import org.apache.commons.pool2.PooledObject;
import org.apache.commons.pool2.impl.DefaultPooledObject;
import org.apache.commons.pool2.impl.GenericObjectPool;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;

import dev.offload.spi.BackendDevice;
import dev.offload.spi.BackendStream;

/**
 * Streams pooled by Apache Commons Pool2's {@link GenericObjectPool}, configured like the
 * Offload pool: unbounded, last in first out, no validation, no eviction, no JMX.
 */
public final class CommonsStreamPool implements AutoCloseable {

	private final GenericObjectPool<BackendStream> pool;

	/**
	 * Creates the pool and its first streams.
	 * @param device the device to create streams on
	 * @param nativePriority the native priority of the streams
	 * @param initialSize the streams created now
	 */
	public CommonsStreamPool(BackendDevice device, int nativePriority, int initialSize) {
		GenericObjectPoolConfig<BackendStream> config = new GenericObjectPoolConfig<>();
		config.setMaxTotal(-1);
		config.setMaxIdle(-1);
		config.setLifo(true);
		config.setJmxEnabled(false);
		config.setMaxWait(Duration.ofSeconds(30));
		this.pool = new GenericObjectPool<>(new StreamFactory(device, nativePriority), config);
		try {
			this.pool.addObjects(initialSize);
		}
		catch (Exception ex) {
			throw new IllegalStateException("Could not create the first streams", ex);
		}
	}

	/**
	 * Borrows a stream.
	 * @return the stream
	 * @throws Exception as {@link GenericObjectPool#borrowObject()} does
	 */
	public BackendStream borrow() throws Exception {
		return this.pool.borrowObject();
	}

	/**
	 * Returns a stream.
	 * @param stream a stream this pool lent
	 */
	public void release(BackendStream stream) {
		this.pool.returnObject(stream);
	}

	/**
	 * Returns the number of streams created and not destroyed.
	 * @return the number
	 */
	public int size() {
		return this.pool.getNumActive() + this.pool.getNumIdle();
	}

	@Override
	public void close() {
		this.pool.close();
	}

	private static final class StreamFactory extends BasePooledObjectFactory<BackendStream> {

		private final BackendDevice device;

		private final int nativePriority;

		StreamFactory(BackendDevice device, int nativePriority) {
			this.device = device;
			this.nativePriority = nativePriority;
		}

		@Override
		public BackendStream create() {
			return this.device.createStream(this.nativePriority);
		}

		@Override
		public PooledObject<BackendStream> wrap(BackendStream stream) {
			return new DefaultPooledObject<>(stream);
		}

		@Override
		public void destroyObject(PooledObject<BackendStream> pooled) {
			pooled.getObject().destroy();
		}

	}

}

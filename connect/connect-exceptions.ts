/**
 * The exceptions of Kafka Connect's data path, named by the Java classes Kafka reports them as
 * (a task's trace, the dead-letter queue's `__connect.errors.exception.class.name` header): a
 * record that cannot be converted or written is a `DataException`; what may succeed when tried
 * again (a schema registry that does not answer) a `RetriableException`.
 */
export class ConnectException extends Error {
  /** The Java class Kafka names this failure by. */
  readonly className: string = 'org.apache.kafka.connect.errors.ConnectException';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = this.className;
  }
}

export class DataException extends ConnectException {
  override readonly className: string = 'org.apache.kafka.connect.errors.DataException';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = this.className;
  }
}

export class RetriableException extends ConnectException {
  override readonly className: string = 'org.apache.kafka.connect.errors.RetriableException';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = this.className;
  }
}

/** The Java class name a failure is reported as: its own for Connect's, the JavaScript one's otherwise. */
export function exceptionClassOf(error: Error): string {
  return error instanceof ConnectException ? error.className : error.name;
}

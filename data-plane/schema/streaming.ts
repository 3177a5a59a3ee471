/** Event-streaming clusters: their users' credentials (migration 0017_streaming). */
export interface StreamingTables {
  streaming_user_credentials: StreamingUserCredentialsTable;
}

/** One user of one cluster: its SCRAM-SHA-512 credential and its sealed password. */
export interface StreamingUserCredentialsTable {
  namespace: string;
  /** The StreamingCluster's object name. */
  cluster: string;
  /** The SASL user name. */
  username: string;
  /** base64 */
  salt: string;
  iterations: number;
  /** base64 */
  stored_key: string;
  /** base64 */
  server_key: string;
  /** The password sealed under a key derived from the platform key, bound to this row. */
  sealed_password: string;
  created_at: string;
}

// Kept by triggers (migration 0005) for fast lists: never written by the service itself.

export interface RecordCountsTable {
  tenant_id: number;
  /** A tenant-owned table with soft delete. */
  table_name: string;
  /** Its live (not deleted) rows in the tenant. */
  live_count: number;
}

export interface TaskSpanLimitsTable {
  tenant_id: number;
  /** The widest end_at - start_at of the tenant's diary tasks so far (ms); it never shrinks. */
  widest_span: number;
}

export interface ListTables {
  record_counts: RecordCountsTable;
  task_span_limits: TaskSpanLimitsTable;
}

// The global settings' store: one JSON document, changed whole in one unit.
export interface SettingsStore {
  /** The stored document (JSON of GlobalSettings); undefined before the first change. */
  read (): Promise<string | undefined>
  /**
   * One change in one transaction: `apply` gets the stored document (undefined before the first
   * change) and returns the one to write; a change made meanwhile by another instance waits or is
   * seen, never lost. What `apply` throws leaves the store as it was. Announced to the other instances.
   */
  change (apply: (stored: string | undefined) => string): Promise<string>
}

/** One row of the service settings: a service's global settings (workspace '') or a workspace's own. */
export interface ServiceSettingsRow { service: string, workspace: string, body: string }

// The service settings' store (WMS, WMTS, WFS; global and per workspace): one JSON document a row.
export interface ServiceSettingsStore {
  /** Every stored document; a service or workspace without a row has its defaults. */
  readAll (): Promise<ServiceSettingsRow[]>
  /**
   * One change of one row in one transaction: `apply` gets the stored document (undefined before the
   * first change) and returns the one to write; a change made meanwhile by another instance waits or
   * is seen, never lost. What `apply` throws leaves the store as it was. Announced to the other instances.
   */
  change (service: string, workspace: string, apply: (stored: string | undefined) => string): Promise<string>
  /** Removes a row (a workspace's own settings, or a workspace's rows with service undefined); whether one went. */
  remove (service: string | undefined, workspace: string): Promise<boolean>
}

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

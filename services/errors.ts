// The catalog of domain failures. Services throw these; plugins/infra/errors.ts is the only place
// that turns a failure's `kind` into an HTTP status. Messages follow GeoServer's wording where
// clients parse them (plain text bodies).
import { format } from 'node:util'

export type ErrorKind =
  | 'invalid'        // the request is malformed or names bad values (400)
  | 'unauthorized'   // credentials missing or wrong (401)
  | 'forbidden'      // authenticated but not allowed, or GeoServer's 403 conventions (403)
  | 'not_found'      // a named resource does not exist (404)
  | 'not_allowed'    // the method is not allowed on this resource (405)
  | 'not_acceptable' // no representation matches Accept (406)
  | 'conflict'       // the resource exists already, or the state forbids the change (409)
  | 'too_large'      // a body, archive or entry over a configured limit (413)
  | 'unsupported'    // media type not accepted here (415)
  | 'unprocessable'  // well-formed but rejected by a rule (422)
  | 'busy'           // a bounded queue is full (429)
  | 'bad_gateway'    // a remote server this one cascades failed or answered an exception (502)
  | 'unavailable'    // shutting down or overloaded (503)
  | 'storage_full'   // ENOSPC on the data directory (507)

export class MapwardenError extends Error {
  readonly code: string
  readonly kind: ErrorKind
  /** The values the message was made of, for a caller that words the failure its own way
   *  (the WMS turns a mosaic's InvalidDimensionValue into its own InvalidDimensionValue). */
  readonly args: readonly unknown[]
  constructor (code: string, kind: ErrorKind, message: string, args: readonly unknown[] = []) {
    super(message)
    this.code = code
    this.kind = kind
    this.args = args
    this.name = 'MapwardenError'
  }
}

export type ErrorFactory = ((...args: unknown[]) => MapwardenError) & { code: string }

/** Declares one failure: `createError('MW_CORE_X', 'not_found', 'No such thing: %s')`. */
export function createError (code: string, kind: ErrorKind, template: string): ErrorFactory {
  const factory = (...args: unknown[]) => new MapwardenError(code, kind, format(template, ...args), args)
  return Object.assign(factory, { code })
}

export function isMapwardenError (err: unknown): err is MapwardenError {
  return err instanceof MapwardenError
}

// --- core (foundation) ---
export const WorkspaceNotFound = createError('MW_CORE_WORKSPACE_NOT_FOUND', 'not_found', "No such workspace: '%s' found")
export const StoreNameClash = createError('MW_CORE_STORE_NAME_CLASH', 'conflict', "Store '%s' clashes with the existing store '%s': names that differ only in case would share one folder")
export const WorkspaceExists = createError('MW_CORE_WORKSPACE_EXISTS', 'conflict', "Workspace '%s' already exists")
export const WorkspaceNotEmpty = createError('MW_CORE_WORKSPACE_NOT_EMPTY', 'forbidden', 'Workspace not empty')
export const NamespaceNotFound = createError('MW_CORE_NAMESPACE_NOT_FOUND', 'not_found', "No such namespace: '%s' found")
export const NamespaceToChangeNotFound = createError('MW_CORE_NAMESPACE_CHANGE_NOT_FOUND', 'not_found', "Can't change a non existant namespace (%s)")
export const NamespaceToDeleteNotFound = createError('MW_CORE_NAMESPACE_DELETE_NOT_FOUND', 'not_found', "Namespace '%s' not found")
export const NamespaceRename = createError('MW_CORE_NAMESPACE_RENAME', 'forbidden', "Can't change name of namespace")
export const DefaultNamespaceDelete = createError('MW_CORE_DEFAULT_NAMESPACE_DELETE', 'not_allowed', "Can't delete the default namespace")
// GeoServer answers 401 here, which clients take for a login challenge: 403 as for a workspace.
export const NamespaceNotEmpty = createError('MW_CORE_NAMESPACE_NOT_EMPTY', 'forbidden', 'Namespace not empty')
export const NamespaceExists = createError('MW_CORE_NAMESPACE_EXISTS', 'conflict', "Namespace with prefix '%s' already exists.")
export const NamespaceUriExists = createError('MW_CORE_NAMESPACE_URI_EXISTS', 'conflict', "Namespace with URI '%s' already exists.")
export const InvalidName = createError('MW_CORE_INVALID_NAME', 'invalid', 'Invalid %s name: %s')
export const InvalidBody = createError('MW_CORE_INVALID_BODY', 'invalid', '%s')
export const NulCharacter = createError('MW_CORE_NUL_CHARACTER', 'invalid', '%s holds a NUL character (U+0000), which no name or text can hold')
export const DataDirInUse = createError('MW_CORE_DATA_DIR_IN_USE', 'conflict', 'The data directory %s is in use by another mapwarden process (pid %s): stop it first, or give this one another MAPWARDEN_DATA_DIR')
export const UploadAborted = createError('MW_CORE_UPLOAD_ABORTED', 'invalid', 'The upload was cut short after %d bytes')
export const InvalidFlag = createError('MW_CORE_INVALID_FLAG', 'invalid', 'Invalid %s=%s: expected true or false')
export const ServiceSettingsNotFound = createError('MW_CORE_SERVICE_SETTINGS_NOT_FOUND', 'not_found', 'No %s settings for workspace %s')
export const NoSuchModule = createError('MW_CORE_NO_SUCH_MODULE', 'not_found', 'No such module: %s')
export const UnknownField = createError('MW_CORE_UNKNOWN_FIELD', 'invalid', 'Unknown field %s in %s')
export const UnknownParameter = createError('MW_CORE_UNKNOWN_PARAMETER', 'invalid', 'Unknown query parameter %s for %s; known: %s')
export const ReadOnlyField = createError('MW_CORE_READ_ONLY_FIELD', 'invalid', 'Field %s of %s is read-only: it is %s, the request sends %s')
export const MalformedXml = createError('MW_CORE_MALFORMED_XML', 'invalid', 'Malformed XML: %s')
export const MalformedJson = createError('MW_CORE_MALFORMED_JSON', 'invalid', 'Malformed JSON: %s')
export const DoctypeNotAllowed = createError('MW_CORE_DOCTYPE_NOT_ALLOWED', 'invalid', 'XML documents with a DOCTYPE or entity declarations are not allowed')
export const TooDeep = createError('MW_CORE_TOO_DEEP', 'invalid', '%s document nested deeper than %d levels')
export const BodyTooLarge = createError('MW_CORE_BODY_TOO_LARGE', 'too_large', 'Request body larger than the limit of %d bytes')
export const UnsupportedMediaType = createError('MW_CORE_UNSUPPORTED_MEDIA_TYPE', 'unsupported', 'Unsupported media type %s; accepted: %s')
export const UnsupportedCharset = createError('MW_CORE_UNSUPPORTED_CHARSET', 'unsupported', 'Unsupported charset: %s')
export const NotAcceptable = createError('MW_CORE_NOT_ACCEPTABLE', 'not_acceptable', 'No representation of this resource matches %s; available: %s')
export const MethodNotAllowed = createError('MW_CORE_METHOD_NOT_ALLOWED', 'not_allowed', 'Request method %s not supported')
export const AdminRequired = createError('MW_CORE_ADMIN_REQUIRED', 'forbidden', 'Administrative privileges required')
export const AccessDenied = createError('MW_CORE_ACCESS_DENIED', 'forbidden', 'Access denied: %s')
export const TooManyAuthFailures = createError('MW_CORE_TOO_MANY_AUTH_FAILURES', 'busy', 'Too many failed logins from this address; try again later')
export const StorageFull = createError('MW_CORE_STORAGE_FULL', 'storage_full', 'Not enough space on the data directory to complete the request')
/** A file system or SQLite failure that means the data directory is full (or over its quota). */
export function isStorageFull (err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code
  return code === 'ENOSPC' || code === 'EDQUOT' || code === 'SQLITE_FULL' || (err instanceof MapwardenError && err.kind === 'storage_full')
}

/** Whether an error means the catalog database cannot be reached (PostgreSQL: the request answers 503, not 500). */
export function isConnectionError (err: unknown): boolean {
  const e = err as { code?: string, message?: string }
  if (typeof e?.code === 'string') {
    // Node's socket errors, and PostgreSQL's connection_exception (08...) and admin/crash shutdown (57P0x).
    if (/^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|ENOTFOUND|EAI_AGAIN)$/.test(e.code)) return true
    if (/^08|^57P0[123]$/.test(e.code)) return true
  }
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(e?.message ?? '')
}

/**
 * Whether a database failure may pass by itself, so the same write can be tried again later: the
 * database cannot be reached (a PostgreSQL restart or failover), SQLite is locked by another
 * connection past its busy timeout, or the disk is full (space comes back when tiles are evicted).
 * Anything else (a constraint, a bug) would fail the same way every time.
 */
export function isTransientDbError (err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code
  return isConnectionError(err) || code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || isStorageFull(err)
}

// --- archives (shared by styles, app-schema and mosaics) ---
export const NotAZip = createError('MW_ZIP_NOT_A_ZIP', 'invalid', 'Not a ZIP archive: %s')
export const UnsafeZipEntry = createError('MW_ZIP_UNSAFE_ENTRY', 'invalid', 'Unsafe ZIP entry %s: %s')
export const TooManyZipEntries = createError('MW_ZIP_TOO_MANY_ENTRIES', 'invalid', 'ZIP archive has more than %d entries')
export const ZipTooLarge = createError('MW_ZIP_TOO_LARGE', 'too_large', 'ZIP archive expands past the limit of %d bytes')

// --- styles ---
// Messages as GeoServer's StyleController and LayerController word them
// (a duplicate or a style in use is 403, as GeoServer; a broken SLD 400).
export const StyleNotFound = createError('MW_STYLES_NOT_FOUND', 'not_found', 'No such style: %s')
export const StyleNotFoundInWorkspace = createError('MW_STYLES_NOT_FOUND_IN_WORKSPACE', 'not_found', 'No such style %s in workspace %s')
export const StyleToDeleteNotFound = createError('MW_STYLES_DELETE_NOT_FOUND', 'not_found', 'Style %s not found')
export const StyleWorkspaceNotFound = createError('MW_STYLES_WORKSPACE_NOT_FOUND', 'not_found', 'Workspace %s not found')
export const StyleHasNoContent = createError('MW_STYLES_NO_CONTENT', 'not_found', 'Style %s has no content yet: PUT an SLD to it first')
export const StyleExists = createError('MW_STYLES_EXISTS', 'forbidden', 'Style %s already exists.')
export const StyleResourceExists = createError('MW_STYLES_RESOURCE_EXISTS', 'forbidden', 'Style resource %s already exists.')
export const DefaultStyleNotDeletable = createError('MW_STYLES_DEFAULT_NOT_DELETABLE', 'forbidden', 'Unable to delete a default style')
export const StyleInUse = createError('MW_STYLES_IN_USE', 'forbidden', "Can't delete style referenced by existing layers.")
export const InvalidStyle = createError('MW_STYLES_INVALID', 'invalid', 'Invalid style:%s')
export const InvalidStyleEntry = createError('MW_STYLES_INVALID_ENTRY', 'invalid', 'Invalid style entry: %s')
export const NoSldInZip = createError('MW_STYLES_NO_SLD_IN_ZIP', 'invalid', 'No sld file provided: the ZIP holds no .sld file at its top level')
export const SeveralSldsInZip = createError('MW_STYLES_SEVERAL_SLDS_IN_ZIP', 'invalid', 'The ZIP holds more than one .sld file at its top level (%s); send one style per package')
export const StyleMediaType = createError('MW_STYLES_MEDIA_TYPE', 'unsupported', 'Unsupported media type %s for %s; accepted: %s')
export const LayerNotFound = createError('MW_STYLES_LAYER_NOT_FOUND', 'not_found', 'No such layer: %s')
export const LayerStyleUnknown = createError('MW_STYLES_LAYER_STYLE_UNKNOWN', 'invalid', 'No such style: %s')
export const LayerStyleOtherWorkspace = createError('MW_STYLES_LAYER_STYLE_OTHER_WORKSPACE', 'invalid', 'Style %s belongs to another workspace than layer %s')

// Layer groups, as GeoServer's LayerGroupController and catalog validation word them.
export const LayerGroupNotFound = createError('MW_STYLES_LAYER_GROUP_NOT_FOUND', 'not_found', 'No such layer group %s')
export const LayerGroupExists = createError('MW_STYLES_LAYER_GROUP_EXISTS', 'conflict', "Layer group named '%s' already exists")
export const LayerGroupEmpty = createError('MW_STYLES_LAYER_GROUP_EMPTY', 'invalid', 'layer group must not be empty')
export const LayerGroupMemberUnknown = createError('MW_STYLES_LAYER_GROUP_MEMBER_UNKNOWN', 'invalid', 'No such %s: %s')
export const LayerGroupStyleUnknown = createError('MW_STYLES_LAYER_GROUP_STYLE_UNKNOWN', 'invalid', 'No such style: %s')
export const LayerGroupCycle = createError('MW_STYLES_LAYER_GROUP_CYCLE', 'invalid', 'Layer group is recursive: %s')
export const LayerGroupNameChange = createError('MW_STYLES_LAYER_GROUP_NAME_CHANGE', 'forbidden', "Can't change name of a layer group")
export const LayerGroupWorkspaceChange = createError('MW_STYLES_LAYER_GROUP_WORKSPACE_CHANGE', 'forbidden', "Can't change the workspace of a layer group, instead DELETE from existing workspace and POST to new workspace")

// --- appschema ---
export const DataStoreNotFound = createError('MW_APPSCHEMA_STORE_NOT_FOUND', 'not_found', 'No such datastore: %s,%s')
export const FeatureTypeNotFound = createError('MW_APPSCHEMA_FEATURE_TYPE_NOT_FOUND', 'not_found', 'No such feature type: %s,%s,%s')
export const UnsupportedStoreFormat = createError('MW_APPSCHEMA_UNSUPPORTED_FORMAT', 'invalid', 'Unsupported format: %s')
export const InvalidConfigure = createError('MW_APPSCHEMA_INVALID_CONFIGURE', 'invalid', 'Invalid configure value %s: expected first, all or none')
export const NoAppSchemaFile = createError('MW_APPSCHEMA_NO_MAIN_FILE', 'invalid', 'Could not find appropriate appschema file in archive')
export const InvalidMapping = createError('MW_APPSCHEMA_INVALID_MAPPING', 'invalid', 'Invalid app-schema mapping (%d problem%s):\n%s')
export const NotAnAppSchemaStore = createError('MW_APPSCHEMA_NOT_APPSCHEMA', 'conflict', "Store '%s' in workspace '%s' exists and is not an Application Schema DataAccess store")
export const DifferentFeatureTypes = createError('MW_APPSCHEMA_DIFFERENT_FEATURE_TYPES', 'conflict',
  'The new mapping exposes the feature types [%s] but data store %s exposes [%s]; a mapping with a different set of feature types cannot replace it: delete the store (DELETE %s?recurse=true) and create it anew with another PUT')
export const FeatureTypeNameTaken = createError('MW_APPSCHEMA_NAME_TAKEN', 'conflict', "Feature type name '%s' and its variants '%s1'...'%s9' are all taken in workspace '%s'")
export const DataStoreNotEmpty = createError('MW_APPSCHEMA_STORE_NOT_EMPTY', 'forbidden', 'datastore not empty')

// --- datastores (PostGIS) ---
export const DataStoreExists = createError('MW_DATASTORE_EXISTS', 'conflict', "Store '%s' already exists in workspace '%s'")
export const InvalidDataStore = createError('MW_DATASTORE_INVALID', 'invalid', 'Invalid data store: %s')
export const UnsupportedDataStoreType = createError('MW_DATASTORE_UNSUPPORTED_TYPE', 'invalid', 'Unsupported data store type %s: data stores are created with dbtype postgis or geopkg, or a shapefile url (application-schema stores with PUT file.appschema)')
export const StoreFileOutsideRoots = createError('MW_DATASTORE_FILE_OUTSIDE_ROOTS', 'invalid', 'Data store file %s is outside the data directory and the harvest roots (MAPWARDEN_HARVEST_ROOTS)')
export const DataStoreUnreachable = createError('MW_DATASTORE_UNREACHABLE', 'invalid', "Cannot connect data store '%s' to its database: %s")
export const DataStoreChangeRefused = createError('MW_DATASTORE_CHANGE_REFUSED', 'forbidden', "Can't change the %s of a data store (%s)")
export const DataStoreWorkspaceMismatch = createError('MW_DATASTORE_WORKSPACE_MISMATCH', 'forbidden', 'Expected workspace %s but client specified %s')
export const UploadMediaType = createError('MW_APPSCHEMA_MEDIA_TYPE', 'unsupported', 'Unsupported media type %s for a mapping upload; accepted: text/xml, application/xml, application/zip')
export const InvalidListValue = createError('MW_APPSCHEMA_INVALID_LIST', 'invalid', 'Invalid list value %s: expected configured, available, available_with_geom or all')
// --- vector (feature types of PostGIS stores, vector sources) ---
export const InvalidFeatureQuery = createError('MW_VECTOR_INVALID_QUERY', 'invalid', 'Invalid feature query: %s')
export const InvalidFeatureType = createError('MW_VECTOR_INVALID_FEATURE_TYPE', 'invalid', 'Invalid feature type: %s')
export const NativeTypeNotInFile = createError('MW_VECTOR_NATIVE_TYPE_NOT_IN_FILE', 'invalid', "No feature type '%s' in %s of data store '%s'")
export const NativeTypeNotFound = createError('MW_VECTOR_NATIVE_TYPE_NOT_FOUND', 'invalid', "No table or view '%s' in schema '%s' of data store '%s'")
export const NoGeometry = createError('MW_VECTOR_NO_GEOMETRY', 'invalid', "Table or view '%s' of data store '%s' has no geometry column: only a type with a geometry is published as a layer")
export const UnknownCrs = createError('MW_VECTOR_UNKNOWN_CRS', 'invalid', "srs %s is not a CRS the database of data store '%s' knows (spatial_ref_sys)")
export const DataStoreDisabled = createError('MW_VECTOR_STORE_DISABLED', 'conflict', "Data store '%s' is disabled: it is not connected (PUT <dataStore><enabled>true</enabled></dataStore> enables it)")
export const FeatureTypeExists = createError('MW_VECTOR_FEATURE_TYPE_EXISTS', 'conflict', "Resource named '%s' already exists in workspace '%s'")
export const FeatureTypeHasLayer = createError('MW_VECTOR_FEATURE_TYPE_HAS_LAYER', 'forbidden', "Feature type '%s' is published as layer '%s': delete it with recurse=true")
export const InvalidRecalculate = createError('MW_VECTOR_INVALID_RECALCULATE', 'invalid', 'Invalid recalculate value %s: expected nativebbox, latlonbbox or both, separated by a comma')
export const FeatureTypeChangeRefused = createError('MW_VECTOR_CHANGE_REFUSED', 'forbidden', "Can't change the %s of a feature type (%s)")
export const SourceUnavailable = createError('MW_VECTOR_SOURCE_UNAVAILABLE', 'unavailable', "Data store '%s' cannot be read: %s")
// --- security ---
// Messages of GeoServer's security REST controllers, word for word.
export const InvalidRule = createError('MW_SECURITY_INVALID_RULE', 'unprocessable', '%s')
export const RulesExist = createError('MW_SECURITY_RULES_EXIST', 'conflict', 'Already existing rules: %s')
export const UnknownRules = createError('MW_SECURITY_UNKNOWN_RULES', 'conflict', 'Unknown rules: %s')
export const RuleNotFound = createError('MW_SECURITY_RULE_NOT_FOUND', 'not_found', 'Rule not found: %s')
export const InvalidCatalogMode = createError('MW_SECURITY_INVALID_MODE', 'unprocessable', 'Not a valid mode: %s')
export const CatalogModeMissing = createError('MW_SECURITY_MODE_MISSING', 'not_found', 'Element mode is missing')
export const MasterPasswordMissing = createError('MW_SECURITY_NO_MASTER_PASSWORD', 'invalid', 'no master password')
export const MasterPasswordRefused = createError('MW_SECURITY_MASTER_PASSWORD_REFUSED', 'unprocessable', 'Cannot change master password: %s')
export const MasterPasswordAdminOnly = createError('MW_SECURITY_MASTER_PASSWORD_ADMIN_ONLY', 'not_allowed', 'Administrative privileges required')
export const MasterKeyMismatch = createError('MW_SECURITY_MASTER_KEY_MISMATCH', 'unavailable', 'The stored master password cannot be decrypted with the configured key (%s)')
export const LayerHidden = createError('MW_SECURITY_LAYER_HIDDEN', 'not_found', 'No such layer: %s')
export const CrossSiteRequest = createError('MW_SECURITY_CROSS_SITE', 'forbidden', 'Cross-site request refused: a %s from %s may not change anything here (a page of another site cannot use your login); add that origin to MAPWARDEN_TRUSTED_ORIGINS if it is yours')
export const CredentialsRefused = createError('MW_SECURITY_CREDENTIALS_REFUSED', 'unauthorized', 'The user name or password was refused')
export const LayerChallenge = createError('MW_SECURITY_LAYER_CHALLENGE', 'unauthorized', 'Authentication required to access layer %s')
export const LayerDenied = createError('MW_SECURITY_LAYER_DENIED', 'forbidden', 'Access denied: no %s permission on layer %s')
export const UserNotFound = createError('MW_SECURITY_USER_NOT_FOUND', 'not_found', 'Provided username does not exist: %s')
export const UserExists = createError('MW_SECURITY_USER_EXISTS', 'conflict', 'User already exists: %s')
export const InvalidUser = createError('MW_SECURITY_INVALID_USER', 'invalid', '%s')
export const WeakPassword = createError('MW_SECURITY_WEAK_PASSWORD', 'unprocessable', 'Invalid password for user %s: %s')
export const RoleNotFound = createError('MW_SECURITY_ROLE_NOT_FOUND', 'not_found', 'Provided role does not exist: %s')
export const RoleExists = createError('MW_SECURITY_ROLE_EXISTS', 'conflict', 'Role already exists: %s')
export const InvalidRole = createError('MW_SECURITY_INVALID_ROLE', 'invalid', 'Invalid role name: %s')
export const ReservedRole = createError('MW_SECURITY_RESERVED_ROLE', 'unprocessable', 'Role %s is built in: it cannot be created, removed or assigned')
export const LastAdmin = createError('MW_SECURITY_LAST_ADMIN', 'conflict', 'Cannot %s: no enabled administrator would be left')
export const TooManyRules = createError('MW_SECURITY_TOO_MANY_RULES', 'unprocessable', 'Too many rules: %d, at most %d are allowed')

// --- seed / tiles (tile cache) ---
export const SeedFieldInvalid = createError('MW_SEED_FIELD_INVALID', 'invalid', 'Invalid seed request: %s %s: %s')
export const SeedFieldMissing = createError('MW_SEED_FIELD_MISSING', 'invalid', 'Invalid seed request: %s is required')
export const SeedUnknownField = createError('MW_SEED_UNKNOWN_FIELD', 'invalid', 'Invalid seed request: unknown field %s')
export const UnknownTileLayer = createError('MW_SEED_UNKNOWN_LAYER', 'invalid', 'Unknown layer %s')
export const TileLayerNotFound = createError('MW_TILES_LAYER_NOT_FOUND', 'not_found', 'Unknown layer %s')
export const TileLayerNotDrawable = createError('MW_TILES_LAYER_NOT_DRAWABLE', 'not_found', 'Layer %s is a feature type served as features only (app-schema): it is not drawn, it has no tiles')
export const KillAllInvalid = createError('MW_SEED_KILL_ALL_INVALID', 'invalid', "Unknown kill_all code: '%s'. One of all|running|pending is expected.")
export const ThreadIdInvalid = createError('MW_SEED_THREAD_ID_INVALID', 'invalid', 'Invalid thread_id %s: a task id (a non-negative integer) is expected')
export const TooManyPendingTasks = createError('MW_SEED_TOO_MANY_PENDING', 'busy', 'Too many pending seed tasks (limit %d); try again later')
export const SeedTaskNotFound = createError('MW_SEED_TASK_NOT_FOUND', 'not_found', 'No such task: %s')
export const TileRequestInvalid = createError('MW_TILES_INVALID', 'invalid', '%s')
// GeoServer's GWCServiceEnablementInterceptor: a WMTS request while WMTS is disabled (400, its words).
export const TileServiceDisabled = createError('MW_TILES_SERVICE_DISABLED', 'invalid', 'Service is disabled')
export const TileParameterInvalid = createError('MW_TILES_PARAMETER_INVALID', 'invalid', 'Invalid tile request: %s %s: %s')
export const GridSetNotOffered = createError('MW_TILES_GRID_SET_NOT_OFFERED', 'invalid', 'Layer %s is not cached in grid set %s (its grid sets: %s)')
export const TileOutOfRange = createError('MW_TILES_OUT_OF_RANGE', 'not_found', 'Tile %s is outside the coverage of layer %s in grid set %s')
export const ServerClosing = createError('MW_SERVER_CLOSING', 'unavailable', 'The server is shutting down; try again later')
export const TileCacheClosing = createError('MW_TILES_CLOSING', 'unavailable', 'The tile cache is shutting down')
export const RenderQueueFull = createError('MW_TILES_RENDER_QUEUE_FULL', 'unavailable', 'The render queue is full; try again later')
// Bad data is not a server fault: 422 names the granule, so the administrator knows which file to replace.
export const GranuleDamaged = createError('MW_TILES_GRANULE_DAMAGED', 'unprocessable', 'Granule %s of layer %s cannot be decoded (%s)')
export const GranulesChanged = createError('MW_TILES_GRANULES_CHANGED', 'unavailable', 'The granules of layer %s changed while a tile was being rendered; try again')
// Tile-cache users' requests (issue 22): per-layer tile settings, cached-only layers, exports.
export const TileSettingInvalid = createError('MW_TILES_SETTING_INVALID', 'invalid', 'Invalid layer %s: %s: %s')
export const TileNotCached = createError('MW_TILES_NOT_CACHED', 'not_found', 'Tile %s of layer %s in grid set %s is not cached, and the layer serves cached tiles only')
export const ExportInvalid = createError('MW_TILES_EXPORT_INVALID', 'invalid', 'Invalid export request: %s %s: %s')
// --- wms (OGC exception codes in the code's suffix: services/wms/exceptions.ts) ---
export const WmsLayerNotDefined = createError('MW_WMS_LAYER_NOT_DEFINED', 'invalid', 'Could not find layer %s')
export const WmsStyleNotDefined = createError('MW_WMS_STYLE_NOT_DEFINED', 'invalid', 'No such style %s for layer %s; allowed: %s')
export const WmsInvalidCrs = createError('MW_WMS_INVALID_CRS', 'invalid', 'Error occurred decoding the espg code %s: %s')
export const WmsInvalidFormat = createError('MW_WMS_INVALID_FORMAT', 'invalid', 'Unsupported %s %s; supported: %s')
export const WmsMissingParameter = createError('MW_WMS_MISSING_PARAMETER', 'invalid', '%s parameter is mandatory')
export const WmsInvalidParameter = createError('MW_WMS_INVALID_PARAMETER', 'invalid', 'Invalid %s %s: %s')
export const WmsInvalidDimension = createError('MW_WMS_INVALID_DIMENSION', 'invalid', 'Invalid %s value %s: %s')
export const WmsOperationNotSupported = createError('MW_WMS_OPERATION_NOT_SUPPORTED', 'invalid', 'No such operation WMS %s; supported: GetCapabilities, GetMap, GetFeatureInfo, GetLegendGraphic')
export const WmsInvalidPoint = createError('MW_WMS_INVALID_POINT', 'invalid', '%s %s is outside the map of %d pixels')
export const WmsLayerNotQueryable = createError('MW_WMS_LAYER_NOT_QUERYABLE', 'invalid', 'Layer %s is not among the LAYERS of the map')
export const WmsTooLarge = createError('MW_WMS_TOO_LARGE', 'invalid', '%s %d is larger than the largest map size of %d pixels (MAPWARDEN_WMS_MAX_SIZE)')
export const WmsTooManyFeatures = createError('MW_WMS_TOO_MANY_FEATURES', 'invalid', 'Layer %s has more than %d features in the map\'s area (MAPWARDEN_WMS_MAX_FEATURES): ask for a smaller area')
export const WmsNotTileAligned = createError('MW_WMS_NOT_TILE_ALIGNED', 'invalid', 'Not a tile of the cache: %s')
// GeoServer's DisabledServiceCheck: an OWS request to a disabled service (code ServiceUnavailable).
// GeoServer's words when a map would need more memory than the WMS maxRequestMemory setting allows.
export const WmsRequestMemory = createError('MW_WMS_REQUEST_MEMORY', 'invalid', 'Rendering request would use %dKB, whilst the maximum memory allowed is %dKB')
export const WmsServiceDisabled = createError('MW_WMS_SERVICE_DISABLED', 'invalid', 'Service %s is disabled')
// GeoServer's DisabledServiceCheck on the WFS (the service name of its settings).
export const WfsServiceDisabled = createError('MW_WFS_SERVICE_DISABLED', 'invalid', 'Service %s is disabled')
// The client went away while its export was being built: nothing is sent, nothing is left (a 4xx in the log, not a fault).
export const ExportCancelled = createError('MW_TILES_EXPORT_CANCELLED', 'invalid', 'Export of %s cancelled: the client closed the connection')
// --- web (admin page) ---
export const WebPageNotBuilt = createError('MW_WEB_NOT_BUILT', 'unavailable', 'The admin page is not built: run npm run build')
export const LegendLayerMissing = createError('MW_WEB_LEGEND_LAYER', 'invalid', 'Query parameter layer is required (a layer name such as demo:watertemp)')
export const LegendStyleInvalid = createError('MW_WEB_LEGEND_STYLE', 'invalid', 'Style %s is not a style of layer %s; allowed: %s')
// --- mosaics ---
export const MosaicWorkspaceNotFound = createError('MW_MOSAIC_WORKSPACE_NOT_FOUND', 'not_found', 'No such workspace : %s')
export const CoverageStoreNotFound = createError('MW_MOSAIC_STORE_NOT_FOUND', 'not_found', 'No such coverage store: %s')
export const CoverageNotFound = createError('MW_MOSAIC_COVERAGE_NOT_FOUND', 'not_found', 'No such coverage in store: %s')
export const GranuleNotFound = createError('MW_MOSAIC_GRANULE_NOT_FOUND', 'not_found', 'Could not find a granule with id %s in coverage %s')
export const MosaicLayerNotFound = createError('MW_MOSAIC_LAYER_NOT_FOUND', 'not_found', 'Unknown layer %s')
export const InvalidCql = createError('MW_MOSAIC_INVALID_CQL', 'invalid', 'Invalid cql syntax: %s')
export const InvalidOffset = createError('MW_MOSAIC_INVALID_OFFSET', 'invalid', 'Invalid offset value: %s')
export const InvalidLimit = createError('MW_MOSAIC_INVALID_LIMIT', 'invalid', 'Invalid limit value: %s')
export const InvalidPurge = createError('MW_MOSAIC_INVALID_PURGE', 'invalid', 'Invalid purge value %s, allowed values are [NONE, METADATA, ALL]')
export const TooManyGranules = createError('MW_MOSAIC_TOO_MANY_GRANULES', 'invalid', 'More than %d granules in one request; harvest the sub-folders one at a time')
export const GranulePagingOnDelete = createError('MW_MOSAIC_PAGING_ON_DELETE', 'invalid', 'offset and limit do not apply when deleting granules; narrow the filter instead (got %s)')
export const GranuleFilterRequired = createError('MW_MOSAIC_FILTER_REQUIRED', 'invalid', 'A filter is required to delete granules (use filter=INCLUDE to delete all of them)')
export const UnsupportedUploadFormat = createError('MW_MOSAIC_UNSUPPORTED_FORMAT', 'invalid', 'Unsupported format: %s, available formats are: [geotiff, imagemosaic, worldimage]')
export const UnsupportedUploadMethod = createError('MW_MOSAIC_UNSUPPORTED_METHOD', 'invalid', 'Unsupported upload method: %s, use file.imagemosaic or file.geotiff (PUT), external.geotiff or external.imagemosaic (PUT), external.imagemosaic (POST)')
export const NoMosaicInArchive = createError('MW_MOSAIC_NO_MOSAIC', 'invalid', 'Could not find appropriate imagemosaic file in archive: %s')
export const InvalidMosaicConfig = createError('MW_MOSAIC_INVALID_CONFIG', 'invalid', 'Invalid mosaic configuration: %s')
export const NoGoodGranules = createError('MW_MOSAIC_NO_GOOD_GRANULES', 'invalid', 'No granule could be indexed: %s')
export const HarvestOutsideRoots = createError('MW_MOSAIC_HARVEST_FORBIDDEN', 'forbidden', 'Harvesting is only allowed under the configured harvest roots: %s')
export const HarvestBadLocation = createError('MW_MOSAIC_HARVEST_BAD_LOCATION', 'invalid', 'Cannot harvest %s: %s')
export const HarvestNotSupported = createError('MW_MOSAIC_NOT_HARVESTABLE', 'not_allowed', 'Coverage store found, but it does not support resource harvesting')
export const CoverageExists = createError('MW_MOSAIC_COVERAGE_EXISTS', 'conflict', 'Coverage %s already exists in workspace %s')
export const NoSuchNativeCoverage = createError('MW_MOSAIC_NO_NATIVE_COVERAGE', 'invalid', 'The mosaic of store %s has no coverage named %s (it has: %s)')
export const EmptyMosaic = createError('MW_MOSAIC_EMPTY', 'invalid', 'Cannot configure coverage %s: the mosaic index has no granules yet; harvest some first')
export const InvalidCoverage = createError('MW_MOSAIC_INVALID_COVERAGE', 'invalid', 'Invalid coverage: %s')
/** A file.geotiff body, or the file an external.geotiff or a store url names, that is not a readable GeoTIFF. */
export const NotAGeoTiff = createError('MW_MOSAIC_NOT_A_GEOTIFF', 'invalid', '%s is not a GeoTIFF mapwarden can serve: %s')
export const NotAWorldImage = createError('MW_MOSAIC_NOT_A_WORLD_IMAGE', 'invalid', '%s is not a WorldImage mapwarden can serve: %s')
// url.* uploads from a remote URL (services/files/remote-fetch.ts).
export const RemoteUploadRefused = createError('MW_UPLOAD_REMOTE_REFUSED', 'forbidden', 'Remote upload from %s refused: %s')
export const RemoteUploadFailed = createError('MW_UPLOAD_REMOTE_FAILED', 'invalid', 'Could not fetch %s: %s')
export const RemoteUploadTooLarge = createError('MW_UPLOAD_REMOTE_TOO_LARGE', 'too_large', '%s is larger than the upload limit of %d bytes (MAPWARDEN_UPLOAD_LIMIT)')
/** GeoServer's StructuredCoverageController on a coverage of a single-file store. */
export const NotStructured = createError('MW_MOSAIC_NOT_STRUCTURED', 'not_found', 'Coverage %s is not a structured coverage: it has no granule index')
export const CoverageStoreExists = createError('MW_MOSAIC_STORE_EXISTS', 'conflict', "Store '%s' already exists in workspace '%s'")
export const InvalidCoverageStore = createError('MW_MOSAIC_INVALID_STORE', 'invalid', 'Invalid coverage store: %s')
export const CoverageStoreNotEmpty = createError('MW_MOSAIC_STORE_NOT_EMPTY', 'forbidden', 'Unable to delete non-empty coverage store %s, use recurse=true')
export const InvalidRenderRequest = createError('MW_MOSAIC_INVALID_RENDER', 'invalid', 'Invalid render request: %s')
/** A TIME or ELEVATION value the granule index cannot read: the dimension and the value (quoted). */
export const InvalidDimensionValue = createError('MW_MOSAIC_INVALID_DIMENSION', 'invalid', 'Invalid render request: bad %s %s')

// --- diskquota ---
export const QuotaFieldInvalid = createError('MW_DISKQUOTA_FIELD_INVALID', 'invalid', '%s')
export const QuotaUnknownLayer = createError('MW_DISKQUOTA_UNKNOWN_LAYER', 'invalid', 'layerQuotas: unknown layer %s')

// --- GeoWebCache REST beyond seeding ---
export const MassTruncateInvalid = createError('MW_GWC_MASS_TRUNCATE_INVALID', 'invalid', 'Invalid mass truncate request: %s')
export const GwcListReadOnly = createError('MW_GWC_LIST_READ_ONLY', 'invalid', '%s is not supported on the layer list; use layers/<layer>.xml')
export const GwcLayerUnsupported = createError('MW_GWC_LAYER_UNSUPPORTED', 'invalid', 'GeoServerLayer %s: %s')
export const GridSetNotFound = createError('MW_GWC_GRIDSET_NOT_FOUND', 'not_found', '%s')
export const GridSetInvalid = createError('MW_GWC_GRIDSET_INVALID', 'invalid', 'Invalid grid set: %s %s: %s')
/** GWC's built-in grid sets live in a read-only configuration (DefaultGridsets). */
export const GridSetBuiltIn = createError('MW_GWC_GRIDSET_BUILT_IN', 'not_allowed', 'Grid set %s is built in: it cannot be %s')
// GWC's file blob stores (BlobStoreController, CompositeBlobStore): its messages where it has them.
export const BlobStoreNotFound = createError('MW_GWC_BLOBSTORE_NOT_FOUND', 'not_found', 'Failed to %s BlobStoreInfo. A BlobStoreInfo with name "%s" does not exist.')
export const BlobStoreListReadOnly = createError('MW_GWC_BLOBSTORE_LIST_READ_ONLY', 'invalid', '%s is not supported on the blob store list; use blobstores/<id>')
export const BlobStoreInvalid = createError('MW_GWC_BLOBSTORE_INVALID', 'invalid', 'Invalid blob store: %s %s: %s')
/** A baseDirectory outside MAPWARDEN_BLOBSTORE_ROOTS (403, as a harvest location outside its roots). */
export const BlobStoreOutsideRoots = createError('MW_GWC_BLOBSTORE_OUTSIDE_ROOTS', 'forbidden', 'Invalid blob store: baseDirectory %s is not under the directories blob stores may use (MAPWARDEN_BLOBSTORE_ROOTS): %s')
export const BlobStoreInUse = createError('MW_GWC_BLOBSTORE_IN_USE', 'conflict', 'Blob store %s cannot be removed: the tiles of %s are kept in it (change their blobStoreId first)')
export const BlobStoreDefaultRemoved = createError('MW_GWC_BLOBSTORE_DEFAULT', 'conflict', "The default blob store can't be removed: %s")
/** CompositeBlobStore's StorageException for a tile of a layer whose store is disabled (400 from GWC's dispatcher). */
export const BlobStoreDisabled = createError('MW_GWC_BLOBSTORE_DISABLED', 'invalid', "Attempted to use a blob store that's disabled: %s")
// --- WFS (services/wfs/exceptions.ts gives each its OGC code and locator: the first argument) ---
export const WfsMissingParameter = createError('MW_WFS_MISSING_PARAMETER', 'invalid', 'The %s parameter is mandatory')
export const WfsInvalidParameter = createError('MW_WFS_INVALID_PARAMETER', 'invalid', 'Invalid %s %s: %s')
export const WfsUnknownType = createError('MW_WFS_UNKNOWN_TYPE', 'invalid', 'Feature type %s unknown')
export const WfsInvalidFilter = createError('MW_WFS_INVALID_FILTER', 'invalid', 'Invalid filter (%s): %s')
export const WfsOperationNotSupported = createError('MW_WFS_OPERATION_NOT_SUPPORTED', 'invalid', 'Operation %s is not supported: %s')
export const WfsVersionNegotiationFailed = createError('MW_WFS_VERSION_NEGOTIATION_FAILED', 'invalid', 'None of the versions %s is supported; supported: 2.0.0, 1.1.0, 1.0.0')
export const WfsFeatureNotFound = createError('MW_WFS_FEATURE_NOT_FOUND', 'not_found', 'Could not find feature with id %s')
export const WfsCannotLockAll = createError('MW_WFS_CANNOT_LOCK_ALL', 'invalid', 'Could not aquire locks for: %s (held by other locks; lockAction=SOME locks the others)')
export const WfsFeatureLocked = createError('MW_WFS_FEATURE_LOCKED', 'invalid', 'Features %s are locked: a Transaction changing them needs the LockId of their lock (%s)')
export const WfsInvalidLockId = createError('MW_WFS_INVALID_LOCK_ID', 'invalid', 'Unknown lock %s (released, or never acquired)')
export const WfsLockExpired = createError('MW_WFS_LOCK_EXPIRED', 'invalid', 'Lock %s has expired')
// --- filters: OGC Filter 1.0/1.1 and FES 2.0 XML (services/filters/ogc-xml.ts) ---
export const InvalidXmlFilter = createError('MW_FILTER_INVALID_XML', 'invalid', 'Invalid filter: %s')
export const UnsupportedFilterOperator = createError('MW_FILTER_UNSUPPORTED_OPERATOR', 'invalid', 'Unsupported filter operator %s: %s')
// --- resource API: the data directory's styles, workspaces and templates (services/resource/) ---
export const ResourceNotFound = createError('MW_RESOURCE_NOT_FOUND', 'not_found', 'No such resource: %s')
export const ResourcePathInvalid = createError('MW_RESOURCE_PATH_INVALID', 'invalid', 'Invalid resource path %s: %s')
export const ResourceIsDirectory = createError('MW_RESOURCE_IS_DIRECTORY', 'not_allowed', 'Cannot PUT to %s: it is a directory')
export const ResourceParentIsFile = createError('MW_RESOURCE_PARENT_IS_FILE', 'conflict', 'Cannot create %s: %s is a file, not a directory')
/** Files the catalog owns (a style's SLD): a direct write would skip the catalog (its caches, the tiles drawn with it). */
export const ResourceOwnedByCatalog = createError('MW_RESOURCE_OWNED_BY_CATALOG', 'forbidden', 'Cannot %s %s: %s')
export const ResourceUnknownParameter = createError('MW_RESOURCE_UNKNOWN_PARAMETER', 'invalid', 'Unknown query parameter %s; known: %s')
export const ResourceOperationUnsupported = createError('MW_RESOURCE_OPERATION_UNSUPPORTED', 'invalid', 'Unsupported operation %s for %s; supported: %s')
// PUT ?operation=copy|move: GeoServer's 'Unable to locate' (404) and 'Cannot copy directory.' (405).
export const ResourceSourceNotFound = createError('MW_RESOURCE_SOURCE_NOT_FOUND', 'not_found', 'Unable to locate %s.')
export const ResourceCopyDirectory = createError('MW_RESOURCE_COPY_DIRECTORY', 'not_allowed', 'Cannot copy directory %s: copy its files one by one, or move it')
export const ResourceSamePath = createError('MW_RESOURCE_SAME_PATH', 'invalid', 'Cannot %s %s onto itself (%s)')
export const ResourceTargetExists = createError('MW_RESOURCE_TARGET_EXISTS', 'conflict', 'Cannot move directory %s to %s: something is there already')
export const ResourceMoveIntoItself = createError('MW_RESOURCE_MOVE_INTO_ITSELF', 'invalid', 'Cannot move directory %s into itself (%s)')

// --- cascaded WMS and WMTS stores (services/cascade) ---
export const CascadeStoreNotFound = createError('MW_CASCADE_STORE_NOT_FOUND', 'not_found', "No such %s store: '%s' in workspace '%s'")
export const CascadeStoreExists = createError('MW_CASCADE_STORE_EXISTS', 'conflict', "Store '%s' already exists in workspace '%s'")
export const CascadeStoreNotEmpty = createError('MW_CASCADE_STORE_NOT_EMPTY', 'forbidden', "Store '%s' has %d published layers: delete them first or use recurse=true")
export const InvalidCascadeStore = createError('MW_CASCADE_INVALID_STORE', 'invalid', '%s')
export const CascadeChangeRefused = createError('MW_CASCADE_CHANGE_REFUSED', 'forbidden', "Can't change the %s of a store (%s)")
export const CascadeLayerNotFound = createError('MW_CASCADE_LAYER_NOT_FOUND', 'not_found', "No such %s layer: '%s' in store '%s' of workspace '%s'")
export const CascadeLayerExists = createError('MW_CASCADE_LAYER_EXISTS', 'conflict', "Resource named '%s' already exists in workspace '%s'")
export const InvalidCascadeLayer = createError('MW_CASCADE_INVALID_LAYER', 'invalid', '%s')
export const CascadeRemoteRefused = createError('MW_CASCADE_REMOTE_REFUSED', 'invalid', 'The remote server at %s is refused: %s')
export const CascadeRemoteFailed = createError('MW_CASCADE_REMOTE_FAILED', 'bad_gateway', 'The remote server at %s failed: %s')
/** The remote could not be reached (refused, broken off, no answer in time, no address): disableOnConnFailure's trigger. */
export const CascadeRemoteUnreachable = createError('MW_CASCADE_REMOTE_UNREACHABLE', 'bad_gateway', 'The remote server at %s failed: %s')
export const CascadeRemoteException = createError('MW_CASCADE_REMOTE_EXCEPTION', 'bad_gateway', 'The remote server at %s answered an exception: %s')
export const CascadeCrsUnsupported = createError('MW_CASCADE_CRS_UNSUPPORTED', 'invalid', 'Layer %s is a cascaded WMTS layer whose remote has no tile matrix set in a CRS its pictures in %s can be drawn from (it has %s)')
export const CascadeStoreDisabled = createError('MW_CASCADE_STORE_DISABLED', 'unavailable', "Store '%s' of layer %s is disabled")
// --- SQL views (GeoServer's JDBC_VIRTUAL_TABLE feature types, read through viewparams) ---
export const InvalidVirtualTable = createError('MW_VECTOR_INVALID_VIRTUAL_TABLE', 'invalid', 'Invalid SQL view: %s')
export const InvalidViewParams = createError('MW_VECTOR_INVALID_VIEWPARAMS', 'invalid', 'Invalid viewparams: %s')

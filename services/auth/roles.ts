// The role names with a fixed meaning. GeoServer's ADMIN and ROLE_ADMINISTRATOR administer
// everything; every caller also holds ROLE_ANONYMOUS or ROLE_AUTHENTICATED, which no user is given.
export const ADMIN_ROLES = ['ADMIN', 'ROLE_ADMINISTRATOR']
export const ANONYMOUS_ROLE = 'ROLE_ANONYMOUS'
export const AUTHENTICATED_ROLE = 'ROLE_AUTHENTICATED'

// Pulls in the system's SQLite header (Debian: libsqlite3-dev).
#include <sqlite3.h>

"""MySQL / MariaDB as the journal archive (``memscribe[mysql]``): :class:`MySQLJournal`."""

from memscribe.stores.mysql.journal import MySQLJournal

__all__ = ["MySQLJournal"]

from strtools.case import squash_spaces, title_case

__all__ = ["squash_spaces", "title_case"]

"""``python -m memscribe``: the same command line as the ``memscribe`` script."""

from memscribe.cli.main import main

if __name__ == "__main__":
    main()

"""The ``batch`` API group: Jobs (:mod:`.job`) and CronJobs (:mod:`.cronjob`)."""

from fake_apiserver._registry.batch import cronjob, job

__all__ = ["DECLARATIONS"]

DECLARATIONS = (cronjob.KIND, job.KIND)
"""The declarations of the group's kinds with rules of their own."""

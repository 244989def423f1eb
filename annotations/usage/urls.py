from django.urls import path

from annotations.usage import acceptance_views, compare_views, design_views, search_views

urlpatterns = [
    path("datasets/<uuid:pk>/search/", search_views.search_page, name="usage-search"),
    path("datasets/<uuid:pk>/search/check/", search_views.query_check, name="usage-query-check"),
    path("datasets/<uuid:pk>/search/rows.tsv", search_views.search_rows_tsv, name="usage-search-tsv"),
    path("datasets/<uuid:pk>/search/saved/", search_views.saved_query_create, name="usage-saved-create"),
    path("datasets/<uuid:pk>/search/saved/<int:query_id>/delete/", search_views.saved_query_delete,
         name="usage-saved-delete"),
    path("datasets/<uuid:pk>/tasks/<str:task>/design/", design_views.design_page, name="usage-design"),
    path("datasets/<uuid:pk>/tasks/<str:task>/design.zip", design_views.design_zip, name="usage-design-zip"),
    path("datasets/<uuid:pk>/tasks/<str:task>/summary/", design_views.summary_page, name="usage-summary"),
    path("datasets/<uuid:pk>/tasks/<str:task>/acceptance/", acceptance_views.task_acceptance_panel,
         name="usage-task-acceptance"),
    path("datasets/<uuid:pk>/acceptance/", acceptance_views.acceptance_page, name="usage-acceptance"),
    path("datasets/<uuid:pk>/acceptance/rules/", acceptance_views.rule_create, name="usage-rule-create"),
    path("datasets/<uuid:pk>/acceptance/defaults/", acceptance_views.rule_defaults, name="usage-rule-defaults"),
    path("datasets/<uuid:pk>/acceptance/check/", acceptance_views.rules_check, name="usage-rules-check"),
    path("datasets/<uuid:pk>/acceptance/rules/<int:rule_id>/delete/", acceptance_views.rule_delete,
         name="usage-rule-delete"),
    path("datasets/<uuid:pk>/export/", acceptance_views.export_confirm, name="usage-export"),
    path("datasets/<uuid:pk>/compare/", compare_views.compare_page, name="usage-compare"),
]

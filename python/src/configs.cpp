// SPDX-License-Identifier: BSD-3-Clause
/* The stage config structs as Python classes: each constructor takes the C *_default() values,
 * every field is an attribute of the same name (nested structs by reference, arrays as NumPy
 * views). The Python package adds keyword constructors, to_dict/update, equality and repr. */
#include "common.h"
#include "fields.h"

#define RW(T, f) def_rw(#f, &T::f)

static void register_stage_configs(nb::module_& m) {
  config_class<vf_pyramid_config>(m, "PyramidConfig", vf_pyramid_config_default,
                                  "Pyramid size and levels (vf_pyramid_config).")
      .RW(vf_pyramid_config, width)
      .RW(vf_pyramid_config, height)
      .RW(vf_pyramid_config, levels);

  config_class<vf_detector_config>(
      m, "DetectorConfig", vf_detector_config_default,
      "FAST detector with one corner per grid cell (vf_detector_config).")
      .RW(vf_detector_config, width)
      .RW(vf_detector_config, height)
      .RW(vf_detector_config, threshold)
      .RW(vf_detector_config, arc_length)
      .RW(vf_detector_config, score)
      .RW(vf_detector_config, border)
      .RW(vf_detector_config, min_level)
      .RW(vf_detector_config, max_level)
      .RW(vf_detector_config, cell_width)
      .RW(vf_detector_config, cell_height)
      .RW(vf_detector_config, host_results);

  auto tc = config_class<vf_tracker_config>(
      m, "TrackerConfig", vf_tracker_config_default,
      "Pyramidal inverse-compositional Lucas-Kanade with gain and bias, and the optional "
      "reference refinement (vf_tracker_config).");
  tc.RW(vf_tracker_config, levels)
      .RW(vf_tracker_config, max_features)
      .RW(vf_tracker_config, max_iterations)
      .RW(vf_tracker_config, coarse_iterations)
      .RW(vf_tracker_config, min_update)
      .RW(vf_tracker_config, max_residual)
      .RW(vf_tracker_config, min_gain)
      .RW(vf_tracker_config, max_gain)
      .RW(vf_tracker_config, estimate_gain)
      .RW(vf_tracker_config, estimate_bias)
      .RW(vf_tracker_config, template_mode)
      .RW(vf_tracker_config, refine)
      .RW(vf_tracker_config, refine_patch)
      .RW(vf_tracker_config, refine_iterations)
      .RW(vf_tracker_config, refine_min_ncc)
      .RW(vf_tracker_config, refine_max_scale)
      .RW(vf_tracker_config, refine_max_shift)
      .RW(vf_tracker_config, refine_shape_prior)
      .RW(vf_tracker_config, refine_one_launch);
  def_array(tc, "patch_size", &vf_tracker_config::patch_size, 1, VF_PYRAMID_MAX_LEVELS,
            "Patch side per level, 3..16 (the first `levels` used).");

  config_class<vf_hsgm_config>(
      m, "HsgmConfig", []() { return vf_stereo_config_default().hsgm; },
      "Hierarchical SGM (vf_hsgm_config).")
      .RW(vf_hsgm_config, levels)
      .RW(vf_hsgm_config, window)
      .RW(vf_hsgm_config, margin);
  config_class<vf_zncc_config>(
      m, "ZnccConfig", []() { return vf_stereo_config_default_for(VF_STEREO_ZNCC_FASTDT).zncc; },
      "ZNCC matching cost (vf_zncc_config).")
      .RW(vf_zncc_config, window)
      .RW(vf_zncc_config, sums);
  config_class<vf_fastdt_config>(
      m, "FastdtConfig",
      []() { return vf_stereo_config_default_for(VF_STEREO_ZNCC_FASTDT).fastdt; },
      "FastDT domain-transform aggregation (vf_fastdt_config).")
      .RW(vf_fastdt_config, enabled)
      .RW(vf_fastdt_config, sigma_s)
      .RW(vf_fastdt_config, sigma_r)
      .RW(vf_fastdt_config, pack8);
  config_class<vf_cyclops_config>(
      m, "CyclopsConfig", []() { return vf_stereo_config_default_for(VF_STEREO_CYCLOPS2).cyclops; },
      "Cyclops2 scan-line search (vf_cyclops_config).")
      .RW(vf_cyclops_config, weight)
      .RW(vf_cyclops_config, memory)
      .RW(vf_cyclops_config, rma_max_log2)
      .RW(vf_cyclops_config, mns_height)
      .RW(vf_cyclops_config, mns_width)
      .RW(vf_cyclops_config, kernel_step)
      .RW(vf_cyclops_config, disparity_step);

  config_class<vf_stereo_config>(
      m, "StereoConfig", vf_stereo_config_default,
      "Dense stereo (vf_stereo_config); StereoConfig.for_method(m) gives "
      "the defaults of one method.")
      .def_static("for_method", &vf_stereo_config_default_for, nb::arg("method"),
                  "The defaults of one method (vf_stereo_config_default_for).")
      .RW(vf_stereo_config, method)
      .RW(vf_stereo_config, width)
      .RW(vf_stereo_config, height)
      .RW(vf_stereo_config, min_disparity)
      .RW(vf_stereo_config, disparities)
      .RW(vf_stereo_config, census)
      .RW(vf_stereo_config, p1)
      .RW(vf_stereo_config, p2)
      .RW(vf_stereo_config, adaptive_p2)
      .RW(vf_stereo_config, paths)
      .RW(vf_stereo_config, uniqueness)
      .RW(vf_stereo_config, lr_check)
      .RW(vf_stereo_config, lr_max_diff)
      .RW(vf_stereo_config, subpixel)
      .RW(vf_stereo_config, median)
      .RW(vf_stereo_config, hsgm)
      .RW(vf_stereo_config, zncc)
      .RW(vf_stereo_config, fastdt)
      .RW(vf_stereo_config, cyclops);
}

static void register_frontend_configs(nb::module_& m) {
  nb::class_<vf_grid>(m, "Grid",
                      "Feature grid: cell size in level-0 pixels, cells across and down.")
      .def(nb::init<>())
      .RW(vf_grid, cell_width)
      .RW(vf_grid, cell_height)
      .RW(vf_grid, cols)
      .RW(vf_grid, rows)
      .def("__copy__", [](const vf_grid& g) { return vf_grid(g); })
      .def(
          "__deepcopy__", [](const vf_grid& g, nb::handle) { return vf_grid(g); }, nb::arg("memo"));

  config_class<vf_feature_set_config>(m, "FeatureSetConfig", vf_feature_set_config_default,
                                      "Track policy of the frontend (vf_feature_set_config).")
      .RW(vf_feature_set_config, width)
      .RW(vf_feature_set_config, height)
      .RW(vf_feature_set_config, grid)
      .RW(vf_feature_set_config, max_features)
      .RW(vf_feature_set_config, min_features)
      .RW(vf_feature_set_config, detect_every)
      .RW(vf_feature_set_config, min_distance)
      .RW(vf_feature_set_config, border)
      .RW(vf_feature_set_config, fb_threshold)
      .RW(vf_feature_set_config, fb_from_prediction)
      .RW(vf_feature_set_config, start_radius);

  config_class<vf_frontend_config>(m, "FrontendConfig", vf_frontend_config_default,
                                   "Everything the frontend needs (vf_frontend_config): cameras, "
                                   "rectification, every stage and the frontend's own settings.")
      .RW(vf_frontend_config, cam0)
      .RW(vf_frontend_config, cam1)
      .RW(vf_frontend_config, rectify)
      .RW(vf_frontend_config, pyramid_levels)
      .RW(vf_frontend_config, detector)
      .RW(vf_frontend_config, tracker)
      .RW(vf_frontend_config, features)
      .RW(vf_frontend_config, stereo)
      .RW(vf_frontend_config, stereo_enabled)
      .RW(vf_frontend_config, right_features)
      .RW(vf_frontend_config, right_max_lr_diff)
      .RW(vf_frontend_config, edge_radius)
      .RW(vf_frontend_config, edge_max_jump)
      .RW(vf_frontend_config, birth_edge_radius)
      .RW(vf_frontend_config, birth_max_jump)
      .RW(vf_frontend_config, birth_max_jump_ratio)
      .RW(vf_frontend_config, birth_max_holes)
      .RW(vf_frontend_config, birth_candidates)
      .RW(vf_frontend_config, disparity_refine_radius)
      .RW(vf_frontend_config, slide_max)
      .RW(vf_frontend_config, gyro_seeding)
      .RW(vf_frontend_config, imu_capacity)
      .RW(vf_frontend_config, imu_max_gap_ns)
      .RW(vf_frontend_config, imu_timeshift_s)
      .RW(vf_frontend_config, disparity_location)
      .RW(vf_frontend_config, stereo_mode)
      .RW(vf_frontend_config, dense_every)
      .RW(vf_frontend_config, sparse_edge_max_step)
      .RW(vf_frontend_config, sparse_birth_max_loss);

  config_class<vf_euroc_config>(m, "EurocConfig", vf_euroc_config_default,
                                "EuRoC reader settings (vf_euroc_config).")
      .RW(vf_euroc_config, stereo_tolerance_ns)
      .RW(vf_euroc_config, prefetch)
      .RW(vf_euroc_config, decode_threads)
      .RW(vf_euroc_config, pinned);
}

void register_configs(nb::module_& m) {
  register_stage_configs(m);
  register_frontend_configs(m);
}

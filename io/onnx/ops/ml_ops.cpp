// ONNX translators for the ai.onnx.ml operators other than the trees: linear models, SVMs,
// Normalizer, Scaler, Binarizer, Imputer, ArrayFeatureExtractor, FeatureVectorizer,
// LabelEncoder (1, 2, 4), OneHotEncoder and CategoryMapper, and the map operators ZipMap,
// DictVectorizer and CastMap.
#include "io/onnx/ops/register_all.h"
#include "ops/ml/array_feature_extractor.h"
#include "ops/ml/cast_map.h"
#include "ops/ml/dict_vectorizer.h"
#include "ops/ml/feature_ops.h"
#include "ops/ml/feature_vectorizer.h"
#include "ops/ml/label_encoder.h"
#include "ops/ml/linear_classifier.h"
#include "ops/ml/linear_regressor.h"
#include "ops/ml/normalizer.h"
#include "ops/ml/one_hot_encoder.h"
#include "ops/ml/svm_classifier.h"
#include "ops/ml/svm_regressor.h"
#include "ops/ml/zip_map.h"

namespace kiln::onnx_io {

namespace {

using namespace kiln::ops::ml;

const std::string kMl = "ai.onnx.ml";

std::vector<float> floats(NodeContext& ctx, const std::string& name) {
  return ctx.attr_floats(name, std::vector<float>{});
}

Labels labels_of(NodeContext& ctx, const std::string& ints_name) {
  Labels l;
  l.ints = ctx.attr_ints(ints_name, std::vector<int64_t>{});
  l.strings = ctx.attr_strings("classlabels_strings", std::vector<std::string>{});
  KILN_ENSURE(l.ints.empty() || l.strings.empty(),
              "{}: only one of {} and classlabels_strings may be given", ctx.op_type(), ints_name);
  return l;
}

PostTransform transform_of(NodeContext& ctx) {
  return parse_post_transform(ctx.attr_string("post_transform", "NONE"));
}

SvmKernelParams kernel_of(NodeContext& ctx) {
  SvmKernelParams k;
  k.kind = parse_svm_kernel(ctx.attr_string("kernel_type", "LINEAR"));
  auto p = floats(ctx, "kernel_params");
  if (!p.empty()) {
    KILN_ENSURE(p.size() == 3, "{}: kernel_params must hold gamma, coef0 and degree",
                ctx.op_type());
    k.gamma = p[0];
    k.coef0 = p[1];
    k.degree = p[2];
  }
  return k;
}

template <typename T>
Tensor vec(const std::vector<T>& v) {
  return Tensor::from_vector<T>({static_cast<int64_t>(v.size())}, v);
}

// LabelEncoder's keys and values: the *_tensor attribute (4), or a typed list (2).
Tensor encoder_list(NodeContext& ctx, const std::string& prefix) {
  if (ctx.has_attr(prefix + "_tensor")) return ctx.attr_tensor(prefix + "_tensor");
  if (ctx.has_attr(prefix + "_strings")) return vec(ctx.attr_strings(prefix + "_strings"));
  if (ctx.has_attr(prefix + "_int64s")) return vec(ctx.attr_ints(prefix + "_int64s"));
  if (ctx.has_attr(prefix + "_floats")) return vec(ctx.attr_floats(prefix + "_floats"));
  fail("LabelEncoder: no {}_* attribute", prefix);
}

Tensor encoder_default(NodeContext& ctx, DatumType dt) {
  if (ctx.has_attr("default_tensor")) return ctx.attr_tensor("default_tensor");
  switch (dt) {
    case DatumType::String:
      return Tensor::scalar<std::string>(ctx.attr_string("default_string", "_Unused"));
    case DatumType::I64:
      return Tensor::scalar<int64_t>(ctx.attr_int("default_int64", -1));
    case DatumType::F32:
      return Tensor::scalar<float>(ctx.attr_float("default_float", -0.0f));
    default:  // values given as a tensor without a default: -1 as the values' type
      return Tensor::scalar<int64_t>(-1).cast_to(dt);
  }
}

void register_encoders(OpRegistry& registry) {
  registry.add(
      "LabelEncoder",
      [](NodeContext& ctx) {
        if (ctx.opset() < 2) {  // classes_strings: string <-> index
          std::vector<std::string> classes = ctx.attr_strings("classes_strings");
          std::vector<int64_t> index(classes.size());
          for (size_t i = 0; i < index.size(); i++) index[i] = static_cast<int64_t>(i);
          const Fact* x = ctx.input_fact(0);
          bool from_strings = !x || x->dt == DatumType::String;
          if (from_strings)
            ctx.wire(std::make_shared<LabelEncoder>(
                vec(classes), vec(index),
                Tensor::scalar<int64_t>(ctx.attr_int("default_int64", -1))));
          else
            ctx.wire(std::make_shared<LabelEncoder>(
                vec(index), vec(classes),
                Tensor::scalar<std::string>(ctx.attr_string("default_string", "_Unused"))));
          return;
        }
        Tensor keys = encoder_list(ctx, "keys");
        Tensor values = encoder_list(ctx, "values");
        Tensor dflt = encoder_default(ctx, values.dtype());
        KILN_ENSURE(dflt.dtype() == values.dtype(),
                    "LabelEncoder: default of type {} for {} values", name_of(dflt.dtype()),
                    name_of(values.dtype()));
        ctx.wire(std::make_shared<LabelEncoder>(keys, values, dflt));
      },
      kMl);
  registry.add(
      "CategoryMapper",
      [](NodeContext& ctx) {
        auto strings = ctx.attr_strings("cats_strings");
        auto ints = ctx.attr_ints("cats_int64s");
        const Fact* x = ctx.input_fact(0);
        if (!x || x->dt == DatumType::String)
          ctx.wire(std::make_shared<LabelEncoder>(
              vec(strings), vec(ints), Tensor::scalar<int64_t>(ctx.attr_int("default_int64", -1)),
              "CategoryMapper"));
        else
          ctx.wire(std::make_shared<LabelEncoder>(
              vec(ints), vec(strings),
              Tensor::scalar<std::string>(ctx.attr_string("default_string", "_Unused")),
              "CategoryMapper"));
      },
      kMl);
  registry.add(
      "OneHotEncoder",
      [](NodeContext& ctx) {
        ctx.wire(std::make_shared<OneHotEncoder>(
            ctx.attr_ints("cats_int64s", std::vector<int64_t>{}),
            ctx.attr_strings("cats_strings", std::vector<std::string>{}),
            ctx.attr_int("zeros", 1) != 0));
      },
      kMl);
}

void register_models(OpRegistry& registry) {
  registry.add(
      "LinearClassifier",
      [](NodeContext& ctx) {
        ctx.wire(std::make_shared<LinearClassifier>(
            floats(ctx, "coefficients"), floats(ctx, "intercepts"),
            labels_of(ctx, "classlabels_ints"), transform_of(ctx)));
      },
      kMl);
  registry.add(
      "LinearRegressor",
      [](NodeContext& ctx) {
        ctx.wire(std::make_shared<LinearRegressor>(floats(ctx, "coefficients"),
                                                   floats(ctx, "intercepts"),
                                                   ctx.attr_int("targets", 1), transform_of(ctx)));
      },
      kMl);
  registry.add(
      "SVMClassifier",
      [](NodeContext& ctx) {
        SvmClassifierModel m;
        m.kernel = kernel_of(ctx);
        m.coefficients = floats(ctx, "coefficients");
        m.support_vectors = floats(ctx, "support_vectors");
        m.rho = floats(ctx, "rho");
        m.prob_a = floats(ctx, "prob_a");
        m.prob_b = floats(ctx, "prob_b");
        m.vectors_per_class = ctx.attr_ints("vectors_per_class", std::vector<int64_t>{});
        m.labels = labels_of(ctx, "classlabels_ints");
        KILN_ENSURE(m.labels.size() > 0, "SVMClassifier: no class labels");
        m.transform = transform_of(ctx);
        ctx.wire(std::make_shared<SvmClassifier>(m));
      },
      kMl);
  registry.add(
      "SVMRegressor",
      [](NodeContext& ctx) {
        auto rho = floats(ctx, "rho");
        KILN_ENSURE(!rho.empty(), "SVMRegressor: rho is required");
        ctx.wire(std::make_shared<SvmRegressor>(
            kernel_of(ctx), floats(ctx, "coefficients"), floats(ctx, "support_vectors"),
            ctx.attr_int("n_supports", 0), rho[0], ctx.attr_int("one_class", 0) != 0,
            transform_of(ctx)));
      },
      kMl);
}

void register_transforms(OpRegistry& registry) {
  registry.add(
      "Normalizer",
      [](NodeContext& ctx) {
        std::string norm = ctx.attr_string("norm", "MAX");
        KILN_ENSURE(norm == "MAX" || norm == "L1" || norm == "L2",
                    "Normalizer: norm must be MAX, L1 or L2, got '{}'", norm);
        ctx.wire(std::make_shared<Normalizer>(norm == "MAX"  ? NormKind::Max
                                              : norm == "L1" ? NormKind::L1
                                                             : NormKind::L2));
      },
      kMl);
  registry.add(
      "Scaler",
      [](NodeContext& ctx) {
        FeatureOpParams p;
        p.offset = floats(ctx, "offset");
        p.scale = floats(ctx, "scale");
        ctx.wire(std::make_shared<FeatureOp>(FeatureOpKind::Scaler, p));
      },
      kMl);
  registry.add(
      "Binarizer",
      [](NodeContext& ctx) {
        FeatureOpParams p;
        p.threshold = ctx.attr_float("threshold", 0.0f);
        ctx.wire(std::make_shared<FeatureOp>(FeatureOpKind::Binarizer, p));
      },
      kMl);
  registry.add(
      "Imputer",
      [](NodeContext& ctx) {
        FeatureOpParams p;
        if (ctx.has_attr("imputed_value_floats")) {
          for (float v : ctx.attr_floats("imputed_value_floats")) p.imputed.push_back(v);
          p.replaced = ctx.attr_float("replaced_value_float", 0.0f);
        } else {
          for (int64_t v : ctx.attr_ints("imputed_value_int64s"))
            p.imputed.push_back(static_cast<double>(v));
          p.replaced = static_cast<double>(ctx.attr_int("replaced_value_int64", 0));
        }
        KILN_ENSURE(!p.imputed.empty(), "Imputer: no imputed values");
        ctx.wire(std::make_shared<FeatureOp>(FeatureOpKind::Imputer, p));
      },
      kMl);
  registry.add(
      "ArrayFeatureExtractor",
      [](NodeContext& ctx) { ctx.wire(std::make_shared<ArrayFeatureExtractor>()); }, kMl);
  registry.add(
      "FeatureVectorizer",
      [](NodeContext& ctx) {
        ctx.wire(std::make_shared<FeatureVectorizer>(ctx.attr_ints("inputdimensions")));
      },
      kMl);
}

// The operators of ONNX map values (core/map_value.h).
void register_maps(OpRegistry& registry) {
  registry.add(
      "ZipMap",
      [](NodeContext& ctx) {
        Labels l;
        l.ints = ctx.attr_ints("classlabels_int64s", std::vector<int64_t>{});
        l.strings = ctx.attr_strings("classlabels_strings", std::vector<std::string>{});
        ctx.wire(std::make_shared<ZipMap>(std::move(l)));
      },
      kMl);
  registry.add(
      "DictVectorizer",
      [](NodeContext& ctx) {
        Labels l;
        l.ints = ctx.attr_ints("int64_vocabulary", std::vector<int64_t>{});
        l.strings = ctx.attr_strings("string_vocabulary", std::vector<std::string>{});
        ctx.wire(std::make_shared<DictVectorizer>(std::move(l)));
      },
      kMl);
  registry.add(
      "CastMap",
      [](NodeContext& ctx) {
        std::string to = ctx.attr_string("cast_to", "TO_FLOAT");
        std::string form = ctx.attr_string("map_form", "DENSE");
        KILN_ENSURE(to == "TO_FLOAT" || to == "TO_STRING" || to == "TO_INT64",
                    "CastMap: cast_to must be TO_FLOAT, TO_STRING or TO_INT64, got '{}'", to);
        KILN_ENSURE(form == "DENSE" || form == "SPARSE",
                    "CastMap: map_form must be DENSE or SPARSE, got '{}'", form);
        ctx.wire(std::make_shared<CastMap>(to == "TO_FLOAT"    ? CastMapTo::Float
                                           : to == "TO_STRING" ? CastMapTo::String
                                                               : CastMapTo::Int64,
                                           form == "SPARSE", ctx.attr_int("max_map", 1)));
      },
      kMl);
}

}  // namespace

void register_ml_ops(OpRegistry& registry) {
  register_maps(registry);
  register_encoders(registry);
  register_models(registry);
  register_transforms(registry);
  register_ml_tree_ops(registry);
}

}  // namespace kiln::onnx_io
